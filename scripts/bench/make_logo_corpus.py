#!/usr/bin/env python3
"""Writes a deterministic corpus of logos for the thumbnail benchmark: sizes
from 256 to 4000 px, half JPEG (photographic) and half PNG (flat colours with
alpha), as hotel logos are.

usage: make_logo_corpus.py OUT_DIR [--count 300]
"""
import argparse
import os
import random

from PIL import Image, ImageDraw


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(4000)
    for index in range(args.count):
        width = rng.randint(256, 4000)
        height = max(256, min(4000, int(width * rng.uniform(0.5, 1.5))))
        is_jpeg = index % 2 == 0
        # A gradient as a base, shapes on top.
        base = Image.linear_gradient("L").resize((width, height))
        image = Image.merge("RGB", (base, base.rotate(90).resize((width, height)), Image.new("L", (width, height), rng.randint(0, 255))))
        image = image.convert("RGBA")
        draw = ImageDraw.Draw(image)
        for _ in range(12):
            x, y = rng.randint(0, width), rng.randint(0, height)
            r = rng.randint(width // 20, width // 4)
            colour = (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), rng.randint(120, 255))
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        draw.text((width // 10, height // 2), "HOTEL", fill=(255, 255, 255, 255))
        path = os.path.join(args.out, f"logo{index:03d}.{'jpg' if is_jpeg else 'png'}")
        if is_jpeg:
            image.convert("RGB").save(path, quality=88)
        else:
            image.save(path, compress_level=6)


if __name__ == "__main__":
    main()
