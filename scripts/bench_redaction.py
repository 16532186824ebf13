"""Benchmark: redaction on adversarial inputs, per step and overall.

    .venv/bin/python scripts/bench_redaction.py [--sizes 40000,400000] [--top 3]

Every redaction step declares the fragments its patterns are built from (literals and the
characters its repeated classes scan). Inputs are those fragments repeated to each size:
each fragment alone, each ordered pair, all of them in a row, seeded random sequences, and
the `a.` run from issue 11 inside a text. Prints, per step, the worst time at each size and
the ratio between sizes (about the size ratio when the step is linear, its square when it
is quadratic), then the same for the whole `redact_text`, for `clip` and for the trigger
pre-filter `may_hold_secret` on the worst inputs of every step. Figures, not pass/fail:
the property tests check correctness on the same kind of inputs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.redaction import STEPS, may_hold_secret, redact_text
from tools.text import clip


def repeated(pieces: list[str], size: int) -> str:
    unit = "".join(pieces) or "a"
    return (unit * (size // len(unit) + 1))[:size]


def inputs(fragments: tuple[str, ...], size: int) -> dict[str, str]:
    found = {f"{f!r}*": repeated([f], size) for f in fragments}
    for a in fragments:
        for b in fragments:
            if a != b:
                found[f"({a!r}+{b!r})*"] = repeated([a, b], size)
    found["all*"] = repeated(list(fragments), size)
    rng = random.Random(11)
    for n in range(3):
        pieces = [rng.choice(fragments) for _ in range(rng.randint(2, 6))]
        found[f"random{n}*"] = repeated(pieces, size)
    found["x a.a.… y"] = "x " + repeated(["a."], size - 4) + " y"
    return found


def timed(function: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    function(text)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="40000,400000", help="input sizes in characters")
    parser.add_argument("--top", type=int, default=3, help="worst inputs per step kept overall")
    parser.add_argument("--step", action="append", help="only these steps (repeatable)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    steps = [s for s in STEPS if not args.step or s.name in args.step]
    header = "".join(f"{f'worst @{s // 1000} KB':>16}" for s in sizes)
    print(f"{'step':<24}{header}  growth  input")
    worst_inputs: dict[int, list[str]] = {size: [] for size in sizes}
    for step in steps:
        worst: list[tuple[float, str]] = []
        for size in sizes:
            texts = inputs(step.fragments, size)
            times = sorted(
                ((timed(step.apply, text), label) for label, text in texts.items()), reverse=True
            )
            worst.append(times[0])
            worst_inputs[size].extend(texts[label] for _, label in times[: args.top])
        ratio = worst[-1][0] / worst[0][0] if worst[0][0] > 0 else float("nan")
        cells = "".join(f"{seconds * 1000:>13.1f} ms" for seconds, _ in worst)
        print(f"{step.name:<24}{cells}  {ratio:6.1f}  {worst[-1][1][:40]}", flush=True)
    overall: tuple[tuple[str, Callable[[str], object]], ...] = (
        ("redact_text", redact_text),
        ("clip", clip),
        ("may_hold_secret", may_hold_secret),  # the pre-filter redact_text runs first
    )
    for name, function in overall:
        cells = ""
        figures = []
        for size in sizes:
            seconds = max(timed(function, text) for text in worst_inputs[size])
            figures.append(seconds)
            cells += f"{seconds * 1000:>13.1f} ms"
        ratio = figures[-1] / figures[0] if figures[0] > 0 else float("nan")
        inputs_kept = len(worst_inputs[sizes[0]])
        print(f"{'overall ' + name:<24}{cells}  {ratio:6.1f}  worst of {inputs_kept} inputs")
    growth = sizes[-1] / sizes[0]
    print(f"growth: worst time at {sizes[-1]:,} / at {sizes[0]:,} characters (linear: ~{growth:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
