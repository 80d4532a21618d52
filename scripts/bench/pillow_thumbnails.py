#!/usr/bin/env python3
"""Pillow's fastest usual thumbnail path, on every core: draft() (JPEG DCT
scaling), a centre crop to the box's aspect, thumbnail(), then PNG.

usage: pillow_thumbnails.py IN_DIR OUT_DIR WIDTH HEIGHT
"""
import os
import sys
from multiprocessing import Pool

from PIL import Image

_, SOURCE, TARGET, WIDTH, HEIGHT = sys.argv
BOX = (int(WIDTH), int(HEIGHT))


def thumbnail(name):
    with Image.open(os.path.join(SOURCE, name)) as image:
        image.draft("RGB", (BOX[0] * 2, BOX[1] * 2))
        scale = max(BOX[0] / image.width, BOX[1] / image.height)
        crop_w, crop_h = BOX[0] / scale, BOX[1] / scale
        left, top = (image.width - crop_w) / 2, (image.height - crop_h) / 2
        image = image.crop((round(left), round(top), round(left + crop_w), round(top + crop_h)))
        image.thumbnail(BOX, Image.Resampling.LANCZOS)
        image.save(os.path.join(TARGET, os.path.splitext(name)[0] + ".png"))


if __name__ == "__main__":
    os.makedirs(TARGET, exist_ok=True)
    with Pool(os.cpu_count()) as pool:
        pool.map(thumbnail, sorted(os.listdir(SOURCE)), chunksize=4)
