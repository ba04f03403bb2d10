"""The daemon under test for the contract checks (check-openapi.py, check-schemathesis.py):
started from an argv, waited for until its socket accepts, stopped on every way out, its log's
tail for error messages. Standard library only."""
import os, signal, socket, subprocess, time


def die_with_parent():
    """In the child before exec: SIGTERM when the checking script dies, even by SIGKILL."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class DaemonProcess:
    """`command()` (a subclass's) run with its output in `log_path`, serving on `socket_path`."""

    description = "the daemon"

    def __init__(self, directory, log_path):
        self.directory = directory
        self.socket_path = os.path.join(directory, "run", "reach.sock")
        self.log_path = log_path
        self.process = None

    def command(self):
        raise NotImplementedError

    def start(self, timeout=30):
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.description} exited with {self.process.returncode}: {self.log()}")
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    probe.connect(self.socket_path)
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"the daemon did not listen on {self.socket_path} within {timeout} s: {self.log()}")

    def stop(self, timeout=15):
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def log(self):
        try:
            with open(self.log_path, "rb") as file:
                return file.read()[-2000:].decode("utf-8", "replace").strip()
        except OSError:
            return "(no log)"
