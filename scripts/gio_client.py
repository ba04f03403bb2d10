"""A GLib program as unattended-upgrades is one: Debian's /usr/bin/python3 with PyGObject asks
Gio.NetworkMonitor.get_default() (our module when GIO_EXTRA_MODULES and REACH_SOCKET point at
it). Prints JSON lines: `start` (the monitor's type, its state, how long get_default took, and
can_reach for each host given, sync and async), then `change` on each network-changed signal
with time.time(), until stdin closes. Used by check-every-app.py."""
import json, sys, time

from gi.repository import Gio, GLib


def state(monitor):
    return {"available": monitor.get_network_available(), "metered": monitor.get_network_metered(),
            "connectivity": monitor.get_connectivity().value_nick}


def can_reach(monitor, host):
    try:
        return monitor.can_reach(Gio.NetworkAddress.new(host, 80), None)
    except GLib.Error as error:
        return f"error: {error.message}"


def emit(value):
    print(json.dumps(value), flush=True)


def main():
    started = time.monotonic()
    monitor = Gio.NetworkMonitor.get_default()
    took = time.monotonic() - started
    hosts = sys.argv[1:]
    loop = GLib.MainLoop()
    answers = {}

    def reached(source, result, host):
        try:
            answers[host + " async"] = source.can_reach_finish(result)
        except GLib.Error as error:
            answers[host + " async"] = f"error: {error.message}"
        if len(answers) == 2 * len(hosts):
            emit({"event": "start", "type": type(monitor).__name__, "get_default_s": round(took, 3), "can_reach": answers,
                  **state(monitor)})

    for host in hosts:
        answers[host] = can_reach(monitor, host)
        monitor.can_reach_async(Gio.NetworkAddress.new(host, 80), None, reached, host)
    if not hosts:
        emit({"event": "start", "type": type(monitor).__name__, "get_default_s": round(took, 3), "can_reach": {}, **state(monitor)})
    monitor.connect("network-changed", lambda m, available: emit({"event": "change", "time": time.time(), **state(m)}))
    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IOCondition.HUP | GLib.IOCondition.IN,
                      lambda *_: loop.quit() or False)
    loop.run()


main()
