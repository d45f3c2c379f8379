"""The text of a completion: a program wrapped the way a chat model wraps code, and the token rule.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

Tokens are counted with one simple rule, for prompts and completions alike: a text of c characters is
ceil(c / 4) tokens; a prompt adds 4 tokens per message and 2 per request (roughly OpenAI's chat overhead).
"""

from __future__ import annotations

import math
import random
from typing import Any, Mapping, Sequence

INTROS = [
    "Here is a Rust solution to the problem.",
    "Below is an implementation in Rust.",
    "Sure! Here's how you can solve this problem in Rust:",
    "We can solve this efficiently. Here is the code:",
    "The following Rust program reads the input, computes the answer and prints it.",
]
OUTROS = [
    "This solution runs within the time limit for the given constraints.",
    "The program reads from standard input and writes the answer to standard output.",
    "Let me know if you need any further explanation!",
    "The time complexity is fine for the given limits.",
    "",
]
MIDDLES = [
    "First, a helper for reading the input:",
    "We will read the input like this:",
    "The core idea in a few lines:",
]
UNKNOWN = [
    "I'm not sure which problem you mean. Could you share the full problem statement, including the input and "
    "output format?",
    "To write a correct program I need the complete statement. Here is a template that reads the input:",
]
TEMPLATE_PROGRAM = """use std::io::{self, Read};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let first = input.split_whitespace().next().unwrap_or("0");
    println!("{}", first);
}
"""
REASONING_STEPS = [
    "Let me think step by step.",
    "First, I restate the task: {name}.",
    "The input is read once from standard input; the constraints suggest an approach based on {tags}.",
    "I need to be careful with edge cases: the smallest inputs, equal values, and large numbers that need 64-bit "
    "integers.",
    "Then I check the idea on the examples before writing the program.",
    "The complexity should fit the time limit.",
]


def count_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    total = 2
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        total += 4 + count_tokens(str(content or ""))
    return total


def corrupt(code: str, rng: random.Random) -> str:
    """A syntax slip of a sampling at high temperature: a dropped semicolon, brace or parenthesis."""
    lines = code.split("\n")
    sites = [i for i, ln in enumerate(lines) if ln.rstrip().endswith((";", "}", ")"))]
    if not sites:
        return code + "\n}"
    i = rng.choice(sites)
    lines[i] = lines[i].rstrip()[:-1]
    return "\n".join(lines)


def reasoning_text(problem: Mapping[str, Any] | None, rng: random.Random) -> str:
    name = str(problem.get("name", "the problem")) if problem else "the problem"
    tags = ", ".join(problem.get("tags", [])) if problem else "careful implementation"
    steps = [s.format(name=name.split(". ", 1)[-1], tags=tags or "careful implementation") for s in REASONING_STEPS]
    keep = [steps[0]] + [s for s in steps[1:] if rng.random() < 0.8]
    return "\n".join(f"{k}. {s}" if k else s for k, s in enumerate(keep))


def snippet(code: str) -> str:
    """A fragment of the program (the input-reading lines) that does not compile on its own."""
    lines = [ln for ln in code.split("\n") if "input" in ln or "stdin" in ln][:3]
    return "\n".join(ln.strip() for ln in lines) or "let mut input = String::new();"


def render(code: str | None, fmt: str, rng: random.Random, reasoning: str | None = None) -> str:
    """The completion text for ``code`` in format ``fmt`` (see rcc_policy.FORMATS)."""
    if code is None:
        text = rng.choice(UNKNOWN)
        if text.endswith(":"):
            text += "\n\n```rust\n" + TEMPLATE_PROGRAM + "```"
        return text
    code = code.rstrip("\n")
    intro, outro = rng.choice(INTROS), rng.choice(OUTROS)
    if fmt == "raw":
        body = code
    elif fmt == "fenced_only":
        body = f"```rust\n{code}\n```"
    elif fmt == "fence_nolang":
        body = f"{intro}\n\n```\n{code}\n```\n\n{outro}"
    elif fmt == "multi_fence":
        body = (f"{intro}\n\n{rng.choice(MIDDLES)}\n\n```rust\n{snippet(code)}\n```\n\nAnd the full program:\n\n"
                f"```rust\n{code}\n```\n\n{outro}")
    elif fmt == "prose_raw":
        body = f"{intro}\n\n{code}\n\n{outro}"
    else:  # prose_fenced
        body = f"{intro}\n\n```rust\n{code}\n```\n\n{outro}"
    if reasoning:
        body = f"{reasoning}\n\n{body}"
    return body.strip() + "\n"
