#!/usr/bin/env python3
"""Seed the decode_<frame> fuzz corpora with the bytes of the golden vectors.

Reads every <frame>.json ({"frame": ..., "cases": [{"name", "hex", ...}]}) of the hand-kept
vectors (vectors/frames) and of those derived from the layouts (vectors/derived), and writes
each case's bytes, valid and invalid alike, to fuzz/corpus/decode_<frame>/<sha1 of the bytes>
(libFuzzer's own naming, so a seed and a fuzzer finding with the same bytes are one file).
Existing files are left alone; running it twice changes nothing.

Usage: python3 fuzz/seed-corpus.py [VECTORS_DIR...]
(default: vectors/frames and vectors/derived beside fuzz/). Standard library only.
"""

import hashlib
import json
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent


def case_bytes(frame, case):
    hex_text = case.get("hex")
    if not isinstance(hex_text, str):
        raise SystemExit(f"{frame}: case {case.get('name')!r} has no \"hex\" string")
    try:
        return bytes.fromhex("".join(hex_text.split()))
    except ValueError as e:
        raise SystemExit(f"{frame}: case {case.get('name')!r}: bad hex: {e}")


def main():
    folders = [Path(a) for a in sys.argv[1:]] or [
        ROOT / "vectors" / "frames",
        ROOT / "vectors" / "derived",
    ]
    files = []
    for folder in folders:
        found = sorted(folder.glob("*.json"))
        if not found:
            raise SystemExit(f"no vector files in {folder}")
        files.extend(found)
    status = 0
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        frame = doc.get("frame", path.stem)
        if frame != path.stem:
            print(f"{path.name}: frame is {frame!r}, not {path.stem!r}", file=sys.stderr)
            status = 1
        target = f"decode_{frame}"
        if not (FUZZ / "fuzz_targets" / f"{target}.rs").exists():
            print(f"{path.name}: no fuzz target {target}", file=sys.stderr)
            status = 1
            continue
        out = FUZZ / "corpus" / target
        out.mkdir(parents=True, exist_ok=True)
        cases = doc.get("cases", [])
        new = 0
        for case in cases:
            data = case_bytes(frame, case)
            dest = out / hashlib.sha1(data).hexdigest()
            if not dest.exists():
                dest.write_bytes(data)
                new += 1
        total = sum(1 for _ in out.iterdir())
        print(f"{path.parent.name}/{path.name}: {len(cases)} cases, {new} new files, {total} in {target}")
    return status


if __name__ == "__main__":
    sys.exit(main())
