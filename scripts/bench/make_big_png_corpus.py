#!/usr/bin/env python3
"""Writes the corpus of issue 15's memory target with ImageMagick: logos from
256 to 4000 px, half of them 16-bit RGB noise PNGs of 35 to 70 MB (noise does
not compress, so each is about as large as its pixels), the other half
plasma:fractal pictures, alternately 8-bit PNG and JPEG. Seeded, so every run
makes the same files; two convert processes at a time.

usage: make_big_png_corpus.py OUT_DIR [--count 120]
"""
import argparse
import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor

CONVERT = "/usr/bin/convert"  # ImageMagick itself, not a stand-in earlier on PATH


def commands(out, count):
    rng = random.Random(15)
    for index in range(count):
        seed = str(1000 + index)
        if index % 2 == 0:
            # 6 bytes a pixel: 6 to 11.4 MP gives 35 to 68 MB.
            width = rng.randint(3000, 4000)
            height = rng.randint(6_000_000 // width + 1, min(4000, 11_400_000 // width))
            path = os.path.join(out, f"noise{index:03d}.png")
            yield path, [CONVERT, "-seed", seed, "-size", f"{width}x{height}", "xc:gray", "+noise", "Random",
                         "-depth", "16", f"PNG48:{path}"]
        else:
            width = rng.randint(256, 4000)
            height = max(256, min(4000, int(width * rng.uniform(0.5, 1.5))))
            extension = "jpg" if index % 4 == 1 else "png"
            path = os.path.join(out, f"plasma{index:03d}.{extension}")
            yield path, [CONVERT, "-seed", seed, "-size", f"{width}x{height}", "plasma:fractal", "-depth", "8", path]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=120)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # Written under a temporary name and renamed, so a stopped run leaves no half file.
    def make(job):
        path, argv = job
        if not os.path.exists(path):
            partial = path + ".partial"
            argv = argv[:-1] + [argv[-1].replace(path, partial)]
            # ImageMagick picks the format from the name: say it for the .partial file.
            if not argv[-1].startswith("PNG48:"):
                argv[-1] = ("JPEG:" if path.endswith(".jpg") else "PNG:") + argv[-1]
            subprocess.run(argv, check=True)
            os.rename(partial, path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(make, commands(args.out, args.count)))


if __name__ == "__main__":
    main()
