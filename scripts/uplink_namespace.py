"""A network namespace with one uplink, for the checks and benchmarks that run a shipped binary
in isolation (check-footprint, make-queue-fixture, bench/startup): loopback up, a veth `IFACE`
with ADDRESS/24 and a default route through .1 of that prefix (nothing answers there, so no
traffic leaves the namespace). Standard library only."""
import subprocess


def run_in(namespace, *command):
    """`command` inside `namespace`, checked; its output as text."""
    return subprocess.run(["ip", "netns", "exec", namespace, *command], check=True, capture_output=True, text=True)


def create(namespace, interface, address):
    """(Re)creates `namespace` with `interface` at `address` (a.b.c.d) and a default route via a.b.c.1."""
    subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    gateway = address.rsplit(".", 1)[0] + ".1"
    run_in(namespace, "ip", "link", "set", "lo", "up")
    run_in(namespace, "ip", "link", "add", interface, "type", "veth", "peer", "name", interface + "p")
    run_in(namespace, "ip", "link", "set", interface + "p", "up")
    run_in(namespace, "ip", "addr", "add", address + "/24", "dev", interface)
    run_in(namespace, "ip", "link", "set", interface, "up")
    run_in(namespace, "ip", "route", "add", "default", "via", gateway, "dev", interface)


def delete(namespace):
    subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
