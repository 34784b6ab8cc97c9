"""Starts processes that leave the script's process group and parentage, records their
pids in the folder given as the first argument, then exits or (with "hang") hangs.

- a child in a session of its own (os.setsid), with its output closed;
- a double-forked grandchild whose parent exits at once (re-parented away);
"""

import os
import subprocess
import sys
import time

folder = sys.argv[1]
quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
own_session = subprocess.Popen(["sleep", "300"], start_new_session=True, **quiet)
with open(os.path.join(folder, "setsid.pid"), "w") as stream:
    stream.write(str(own_session.pid))

middle = os.fork()
if middle == 0:
    os.setsid()
    grandchild = subprocess.Popen(["sleep", "300"], **quiet)
    with open(os.path.join(folder, "daemon.pid"), "w") as stream:
        stream.write(str(grandchild.pid))
    os._exit(0)
os.waitpid(middle, 0)
print("started")
sys.stdout.flush()
if sys.argv[2:] == ["hang"]:
    time.sleep(300)
