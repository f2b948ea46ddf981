"""Serve one of gen_mini.py's scripts (by name) from the loopback stub until killed; prints the
stub's base URL. For the interactive ``mini`` runs drive_mini_interactive.sh makes."""

from __future__ import annotations

import sys
import time

import gen_mini
from fake_openai import FakeOpenAI

if __name__ == "__main__":
    stub = FakeOpenAI(getattr(gen_mini, sys.argv[1]))
    print(stub.url, flush=True)
    while True:
        time.sleep(1)
