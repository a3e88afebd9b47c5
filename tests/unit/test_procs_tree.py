"""chunk_contract.containment.procs.tree: a plugin's whole process tree, however its processes hide
(a session of their own, a daemon whose parent exited), and nothing else."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from chunk_contract.containment import procs

#: Run in a helper process that adopts orphans, like the command line: it forks a "worker"
#: (which leads its own session, as a worker does) that starts a plain child, a child in a
#: session of its own and a daemon (double fork, setsid); then prints what tree() finds.
SCRIPT = textwrap.dedent(
    """
    import json, os, subprocess, sys, time
    from chunk_contract.containment import procs, reaper

    assert reaper.adopt_orphans()
    read, write = os.pipe()
    worker = os.fork()
    if worker == 0:
        os.setsid()
        plain = subprocess.Popen(["sleep", "30"])
        alone = subprocess.Popen(["sleep", "30"], start_new_session=True)
        daemon = subprocess.Popen(
            [sys.executable, "-c",
             "import os, subprocess, sys\\n"
             "if os.fork(): os._exit(0)\\n"
             "os.setsid()\\n"
             "p = subprocess.Popen(['sleep', '30'])\\n"
             "print(os.getpid(), p.pid, flush=True)\\n"
             "os.close(1)\\n"
             "p.wait()"],
            stdout=subprocess.PIPE)
        inner = [int(x) for x in daemon.stdout.readline().split()]
        daemon.wait()
        os.write(write, json.dumps([plain.pid, alone.pid, *inner]).encode())
        time.sleep(30)
        os._exit(0)
    found = json.loads(os.read(read, 1000))
    bystander = subprocess.Popen(["sleep", "30"], start_new_session=True)  # the host's own
    reaper.register(bystander.pid, "a known child")
    time.sleep(0.2)
    tree = procs.tree(worker, adopter=os.getpid(), known={bystander.pid})
    without = procs.tree(worker)
    print(json.dumps({"worker": worker, "found": found, "tree": tree, "without": without,
                      "bystander": bystander.pid, "host": os.getpid()}))
    for pid in tree + [bystander.pid]:
        os.kill(pid, 9)
    """
)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_the_tree_holds_every_hidden_process_and_no_other() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    plain, alone, daemon, daemon_child = seen["found"]
    assert {seen["worker"], plain, alone, daemon, daemon_child} == set(seen["tree"])
    assert seen["bystander"] not in seen["tree"] and seen["host"] not in seen["tree"]
    # Without the adopter, the daemon (nobody's child but the helper's) is out of reach.
    assert daemon not in seen["without"] and alone in seen["without"]


def test_memory_counts_a_process_and_nothing_for_a_gone_one() -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        assert procs.memory(sleeper.pid) > 0
        used, pids = procs.tree_memory(sleeper.pid)
        assert pids == [sleeper.pid] and used > 0  # (PSS moves as other processes share pages)
    finally:
        sleeper.send_signal(signal.SIGKILL)
        sleeper.wait()
    assert procs.memory(sleeper.pid) == 0
