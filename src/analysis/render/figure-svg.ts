/**
 * @module
 * Draw any figure as SVG, whichever kind it is.
 */
import { barChartSvg } from "./bar-chart-svg.js";
import type { Figure } from "./figure.js";
import { lineChartSvg } from "./line-chart-svg.js";

export function figureSvg(figure: Figure): string {
  switch (figure.kind) {
    case "line":
      return lineChartSvg(figure);
    case "bar":
      return barChartSvg(figure);
  }
}
