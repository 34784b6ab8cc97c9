"""Tries to start as many sleeping children as the first argument asks for, then says how
many started and how many forks were refused."""

import os
import sys
import time

started = refused = 0
for _ in range(int(sys.argv[1])):
    try:
        pid = os.fork()
    except BlockingIOError:
        refused += 1
        continue
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    started += 1
print(f"started {started} refused {refused}")
