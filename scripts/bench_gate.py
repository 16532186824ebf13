"""Benchmark: the safety gate against the adversarial corpus, and its cost per 100 KB.

    .venv/bin/python scripts/bench_gate.py [--sizes 100000,1000000] [--repeat 3]

Prints how many corpus cases the gate holds (tests/safety/data/adversarial.jsonl), by
class; how many read-only counter-cases it wrongly turns into blocks; the same figures,
apart, for the held-out corpus (tests/safety/data/adversarial_heldout.jsonl, written
without sight of the gate or the first corpus, so it measures generality); then the time
`guard_text` takes on the corpus texts joined into inputs of each size, with the time per
100 KB (about constant when the gate is linear) and the ratio between sizes (about the
size ratio when linear, its square when quadratic). Figures, not pass/fail: the test
tests/safety/test_adversarial_corpus.py is the bar.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# The corpus reader, tests/safety/corpus.py (the tests directory is not a package).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from safety.corpus import CLASSES, Case, judge_case, load_cases

from agent.safety.gate import guard_text
from agent.safety.shell import judge
from agent.safety.suggest import SuggestionContext

# The held-out corpus, reported apart from the first one.
HELDOUT = Path(__file__).resolve().parent.parent / "tests/safety/data/adversarial_heldout.jsonl"


def held_by_class(cases: list[Case], title: str = "cases") -> None:
    total: Counter[str] = Counter()
    held: Counter[str] = Counter()
    for case in cases:
        total[case.cls] += 1
        held[case.cls] += not judge_case(case)
    attacks = [cls for cls in CLASSES if cls != "benign"]
    held_all = sum(held[c] for c in attacks)
    total_all = sum(total[c] for c in attacks)
    print(f"{title} held: {held_all} / {total_all}")
    for cls in attacks:
        print(f"  class {cls}: {held[cls]} / {total[cls]}")
    wrong = total["benign"] - held["benign"]
    print(f"benign false positives: {wrong} / {total['benign']}")


# The cluster and node names the corpus uses (see tests/safety/data/adversarial.jsonl).
_RENAMED = ("ml-train-prod", "0a1b2c3d4e5f60718", "0f9e8d7c6b5a40321", "ip-10-1-2-33")


def mixed_text(cases: list[Case], size: int) -> str:
    """The corpus texts one after another (a blank line between), cut to ``size``
    characters at a case boundary: many answers in one, as a long reply would be. Each
    round through the corpus renames its cluster and nodes, so the verdicts the gate
    remembers for a command (`agent.safety.shell.judge`) serve a repeat only where the
    answers themselves repeat a command."""
    pieces: list[str] = []
    length = 0
    rounds = 0
    while length < size:
        rounds += 1
        for case in cases:
            piece = case.text.rstrip("\n") + "\n\n"
            for name in _RENAMED:
                piece = piece.replace(name, f"{name[:-5]}{rounds:05x}")
            if length + len(piece) > size:
                break
            pieces.append(piece)
            length += len(piece)
        else:
            continue
        break
    return "".join(pieces)


def cost(cases: list[Case], sizes: list[int], repeat: int) -> None:
    context = SuggestionContext(triage_done=True)
    previous: tuple[int, float] | None = None
    for size in sizes:
        text = mixed_text(cases, size)
        best = float("inf")
        for _ in range(repeat):
            judge.cache_clear()
            start = time.perf_counter()
            guard_text(text, context)
            best = min(best, time.perf_counter() - start)
        per_100k = best / (len(text) / 100_000)
        line = f"{len(text):>9} chars: {best:7.3f} s, {per_100k:6.3f} s per 100 KB"
        if previous is not None:
            line += f", x{best / previous[1]:.1f} time for x{len(text) / previous[0]:.1f} size"
        print(line)
        previous = (len(text), best)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="input sizes in characters")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the best counts")
    args = parser.parse_args()
    cases = load_cases()
    held_by_class(cases)
    held_by_class(load_cases(HELDOUT), "held-out cases")
    cost(cases, [int(s) for s in args.sizes.split(",")], args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
