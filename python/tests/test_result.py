import json
import math

from rebench_env.result import outcome_invalid, outcome_scored, write_result


def test_write_result_round_trips(tmp_path):
    path = tmp_path / "result.json"
    write_result(path, outcome_scored(1.5), {"time_ms": 4.48}, {"seed": 7})
    assert json.loads(path.read_text()) == {
        "outcome": {"kind": "scored", "value": 1.5},
        "message": {"time_ms": 4.48},
        "details": {"seed": 7},
    }


def test_non_finite_scores_become_invalid():
    assert outcome_scored(math.nan)["kind"] == "invalid"
    assert outcome_scored(math.inf)["kind"] == "invalid"
    assert outcome_invalid("wrong output") == {"kind": "invalid", "reason": "wrong output"}


def test_result_uses_env_path(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    monkeypatch.setenv("REBENCH_RESULT", str(path))
    write_result(None, outcome_invalid("x"))
    assert json.loads(path.read_text())["outcome"]["kind"] == "invalid"
