"""Lights speed: frame compute time for 32, 64 and 160 LEDs, CPU share at 60 fps.

Run ``.venv/bin/python -m bench.leds`` (``--json`` for one JSON object; the same
figures as ``kalimambo leds bench --json``).  It prints measured figures and
asserts nothing.  Targets from issue 4: a frame at most 0.5 ms for 160 LEDs
(a tenth of the 4.85 ms the strip takes to receive it), and a 60 fps animation
at most 5 % of one core.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from kalimambo.firmware.bench import run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.leds", description=__doc__)
    parser.add_argument("--frames", type=int, default=3000, help="frames timed per size")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="how long the 60 fps animation is measured")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = run(args.frames, args.seconds)
    if args.json:
        sys.stdout.write(json.dumps(figures) + "\n")
        return 0
    print(f"lights on {figures['machine']['cpu']}, Python {figures['machine']['python']}")
    print("frame compute (a whole 7-player round's animation, then the attract):")
    for leds, times in figures["frame_compute"].items():
        print(f"  {leds:>4} LEDs: mean {times['mean_ms']:.3f} ms, p99 {times['p99_ms']:.3f} ms,"
              f" max {times['max_ms']:.3f} ms   (target <= 0.5 ms at 160)")
    share = figures["animation_60fps"]["160"]
    print(f"60 fps animation, 160 LEDs: {share['cpu_share_percent']:.2f} % of one core at "
          f"{share['frames_per_second']:.1f} frames/s   (target <= 5 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
