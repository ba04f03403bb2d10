#!/usr/bin/env python3
"""Wi-Fi facts benchmark, run inside the VM lab (scripts/bench/wifi.sh starts it there).

One access point that announces itself as Android's tethering does (802.11u access network
type 2, chargeable public) on a mac80211_hwsim radio in a namespace of its own, and a station
(wpa_supplicant on wlan0) that connects and disconnects CYCLES times. Side by side in the same
run:
  * `iw event -t`: the kernel's nl80211 events, the reference time of each (dis)association;
  * `reach watch --json --all-changes --debounce 0` with Wi-Fi facts (the default);
  * the same with `--no-wifi-facts` (what reach did before);
  * `ip -ts monitor link`, the peer: it sees the carrier, never the network or its cost.
Half the cycles the station leaves (`wpa_cli disconnect`), half the access point ends the
association (`hostapd_cli deauthenticate`). Measured: the delay from the kernel's `connected`
event to the first reach line naming the SSID with the cost (and to ip monitor's LOWER_UP
line), from `disconnected` to reach's unreachable line (and ip monitor's NO-CARRIER line);
reach's CPU per path change with and without Wi-Fi facts; both watchers' RSS when idle (with
the guest kernel's fault-around set to one page, so file-backed RSS is the code each ran).

Output: a table on stdout, JSON in scripts/bench/results/wifi-<UTC time>.json.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import log  # noqa: E402

LIB = os.path.join(benchlib.REPO, "scripts", "vmlab", "guest", "lib.sh")
SSID = "AndroidAP"


def shell(script: str, timeout: float = 60) -> str:
    """Runs `script` with the vmlab guest helpers sourced; raises on failure."""
    done = subprocess.run(["sh", "-c", f". {LIB}; {script}"], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{script!r}: {done.stderr.strip()[-400:]}")
    return done.stdout


class Lines:
    """A child process whose stdout lines are kept with the wall-clock time each was read."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for stamp, lines in benchlib.stamped_lines(self.proc.stdout, time.time):
            with self.lock:
                self.lines.extend((stamp, line.decode(errors="replace")) for line in lines)

    def snapshot(self) -> list[tuple[float, str]]:
        with self.lock:
            return list(self.lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def iso_seconds(text: str) -> float:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def wlan0(line: str) -> dict | None:
    try:
        path = json.loads(line)
    except ValueError:
        return None
    interface = next((i for i in path.get("interfaces", []) if i.get("name") == "wlan0"), None)
    if interface is None:
        return None
    wifi = interface.get("wifi") or {}
    return {"time": iso_seconds(path["time"]), "status": path["status"], "ssid": wifi.get("ssid"),
            "expensive": interface["expensive"], "associated": wifi.get("associated")}


def first_after(items, start: float, predicate):
    return next((item for item in items if item[0] >= start and predicate(item)), None)


def kernel_events(iw: Lines, word: str) -> list[float]:
    """Times of `iw event -t` lines for wlan0 containing `word` (`connected to`, `disconnected`)."""
    times = []
    for _, line in iw.snapshot():
        head, _, rest = line.partition(":")
        if "wlan0" in rest and word in rest:
            try:
                times.append(float(head))
            except ValueError:
                pass
    return times


def ip_monitor_times(ip: Lines, carrier: bool) -> list[float]:
    times = []
    for _, line in ip.snapshot():
        if ": wlan0:" not in line or not line.startswith("["):
            continue
        up = "LOWER_UP" in line
        if up == carrier:
            times.append(iso_seconds(line[1:line.index("]")]) if "T" in line[:32] else 0.0)
    return times


def memory(pid: int) -> dict:
    """VmRSS and its anonymous and file-backed parts (KiB): anonymous memory is what the process
    itself holds; file-backed pages are its code, shared and reclaimable."""
    return {"rss": benchlib.status_kib(pid, "VmRSS") or 0, "anonymous": benchlib.status_kib(pid, "RssAnon") or 0,
            "file": benchlib.status_kib(pid, "RssFile") or 0}


def calibration_ms() -> float:
    """CPU time of a fixed piece of Python work: run on the host and in the guest, the ratio is
    how much slower the emulated CPU is (TCG), to estimate native figures from emulated ones."""
    started = time.process_time()
    total = 0
    for number in range(3_000_000):
        total += number * number % 7
    return (time.process_time() - started) * 1000


def summary(values: list[float]) -> dict:
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    return {"count": len(values), "median_ms": round(statistics.median(ordered), 2),
            "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 2), "max_ms": round(ordered[-1], 2)}


def delays(references: list[float], observed: list[float]) -> list[float]:
    """For each reference time, ms until the first observed time at or after it (within 10 s)."""
    out = []
    for reference in references:
        later = [t for t in observed if reference - 0.002 <= t <= reference + 10]
        if later:
            out.append(max(0.0, (min(later) - reference) * 1000))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reach", required=True)
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--out", default=benchlib.RESULTS_DIR)
    parser.add_argument("--host-calibration-ms", type=float, help="calibration_ms() measured on the host (wifi.sh does)")
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc)
    results: dict = {"kind": "wifi", "started": started.isoformat(), "cycles": args.cycles, **benchlib.git_state()}
    watchers: list[Lines] = []
    try:
        # The kernel maps up to 64 KiB of an already cached file around each page fault, so a
        # process's file-backed RSS counts neighbourhoods of the code it ran, not that code. At
        # 4 KiB (a guest-only debugfs knob) RSS counts the pages each watcher really touched.
        fault_around = "/sys/kernel/debug/fault_around_bytes"
        if not os.path.exists(fault_around):
            subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"], check=False)
        if os.path.exists(fault_around):
            with open(fault_around, "w") as knob:
                knob.write("4096")
            results["fault_around_bytes"] = 4096
        shell("vm_wifi_radios 2")
        shell("ip link set wlan0 up && ip addr add 10.77.0.2/24 dev wlan0")
        shell(f"vm_ap_start bench wlan1 'ssid={SSID}\nhw_mode=g\nchannel=1\ninterworking=1\naccess_network_type=2' && "
              "ip netns exec ap-bench ip addr add 10.77.0.1/24 dev $(cat $VM_STATE/ap-bench.if)")
        iw = Lines(["iw", "event", "-t"])
        ip = Lines(["ip", "-ts", "monitor", "link"])
        reach = Lines([args.reach, "watch", "--json", "--all-changes", "--debounce", "0"])
        bare = Lines([args.reach, "watch", "--json", "--all-changes", "--debounce", "0", "--no-wifi-facts"])
        watchers = [iw, ip, reach, bare]
        time.sleep(3)
        shell(f"vm_sta_connect wlan0 {SSID} && ip route replace default via 10.77.0.1 dev wlan0")
        # Idle after the association: three samples 2 s apart, the median of each figure.
        samples = []
        for _ in range(3):
            time.sleep(2)
            samples.append({name: memory(w.proc.pid) for name, w in (("reach", reach), ("bare", bare))})
        idle = {name: {key: statistics.median(s[name][key] for s in samples) for key in samples[0][name]} for name in ("reach", "bare")}
        results["idle_memory_associated_kib"] = idle
        results["idle_memory_associated_added_kib"] = {key: idle["reach"][key] - idle["bare"][key] for key in idle["reach"]}
        cpu_before = {name: benchlib.clock_ms(w.proc.pid) for name, w in (("reach", reach), ("bare", bare))}
        lines_before = {name: len(w.snapshot()) for name, w in (("reach", reach), ("bare", bare))}
        cycles_started = time.time()
        station = open("/sys/class/net/wlan0/address").read().strip()
        completed = "vm_wait \"wpa_cli -p /run/wpa_supplicant -i wlan0 status | grep -qx wpa_state=COMPLETED\" 30"
        for cycle in range(args.cycles):
            if cycle % 2 == 0:
                # The station leaves (reason 3), then joins again.
                shell("wpa_cli -p /run/wpa_supplicant -i wlan0 disconnect >/dev/null && "
                      "vm_wait \"wpa_cli -p /run/wpa_supplicant -i wlan0 status | grep -qx wpa_state=DISCONNECTED\" 20")
                time.sleep(1.0)
                shell(f"wpa_cli -p /run/wpa_supplicant -i wlan0 reconnect >/dev/null && {completed}")
            else:
                # The access point ends it; wpa_supplicant joins again by itself.
                shell(f"hostapd_cli -p /run/hostapd-bench -i $(cat $VM_STATE/ap-bench.if) deauthenticate {station} >/dev/null && "
                      "sleep 0.5 && " + completed)
            time.sleep(1.0)
        time.sleep(2)
        cpu = {name: benchlib.clock_ms(w.proc.pid) - cpu_before[name] for name, w in (("reach", reach), ("bare", bare))}
        changes = {name: len(w.snapshot()) - lines_before[name] for name, w in (("reach", reach), ("bare", bare))}
        time.sleep(3)
        rss = {name: memory(w.proc.pid) for name, w in (("reach", reach), ("bare", bare))}

        # References: the kernel's events during the cycles (the first association waited for
        # the bench to add the default route). A disconnection's reference is the earlier of
        # nl80211's event and the carrier loss ip monitor saw (the carrier often drops first).
        no_carrier = ip_monitor_times(ip, False)

        def earliest(event: float) -> float:
            return min([event] + [t for t in no_carrier if event - 0.3 <= t <= event])

        connected = [t for t in kernel_events(iw, "connected to") if t >= cycles_started]
        left = [earliest(t) for t in kernel_events(iw, "disconnected (local request)") if t >= cycles_started]
        ended = [earliest(t) for t in kernel_events(iw, "disconnected (by AP)") if t >= cycles_started]
        reach_rows = [(row["time"], row) for row in (wlan0(line) for _, line in reach.snapshot()) if row]
        costed = [t for t, row in reach_rows if row["ssid"] == SSID and row["expensive"] and row["status"] == "wifi"]
        gone = [t for t, row in reach_rows if row["status"] == "unreachable" and row["associated"] is False]
        results["association_to_path_ms"] = {"reach": summary(delays(connected, costed)),
                                             "ip_monitor_lower_up": summary(delays(connected, ip_monitor_times(ip, True)))}
        bare_gone = [t for t, row in ((r["time"], r) for r in (wlan0(l) for _, l in bare.snapshot()) if r) if row["status"] == "unreachable"]
        results["disassociation_to_unreachable_ms"] = {
            "station_leaves": {"reach": summary(delays(left, gone)), "reach_no_wifi_facts": summary(delays(left, bare_gone)),
                               "ip_monitor_no_carrier": summary(delays(left, no_carrier))},
            "access_point_ends": {"reach": summary(delays(ended, gone)), "reach_no_wifi_facts": summary(delays(ended, bare_gone)),
                                  "ip_monitor_no_carrier": summary(delays(ended, no_carrier))}}
        results["kernel_events"] = {"connected": len(connected), "left": len(left), "ended_by_ap": len(ended)}
        # The raw series, to check any figure against what each tool printed.
        results["raw"] = {"iw": [line for _, line in iw.snapshot() if "wlan0" in line],
                          "reach": [(t, r["status"], r["associated"]) for t, r in reach_rows],
                          "bare": [(r["time"], r["status"]) for r in (wlan0(l) for _, l in bare.snapshot()) if r],
                          "ip_monitor": [line[:90] for _, line in ip.snapshot() if ": wlan0:" in line]}
        results["path_changes"] = changes
        results["cpu_ms"] = {k: round(v, 2) for k, v in cpu.items()}
        results["cpu_ms_per_change"] = {k: round(cpu[k] / max(1, changes[k]), 3) for k in cpu}
        results["wifi_cpu_ms_per_association_change"] = round((cpu["reach"] - cpu["bare"]) / max(1, 2 * args.cycles), 3)
        results["wifi_cpu_ms_per_path_change"] = round((cpu["reach"] - cpu["bare"]) / max(1, changes["reach"]), 3)
        results["idle_memory_kib"] = rss
        guest = calibration_ms()
        results["calibration_ms"] = {"guest": round(guest, 1), "host": args.host_calibration_ms}
        slowdown = guest / args.host_calibration_ms if args.host_calibration_ms else None
        results["emulation_slowdown"] = round(slowdown, 1) if slowdown else None
        results["idle_memory_added_kib"] = {key: rss["reach"][key] - rss["bare"][key] for key in rss["reach"]}
    finally:
        for watcher in watchers:
            watcher.stop()
        try:
            shell("vm_cleanup", timeout=60)
        except Exception as error:  # noqa: BLE001
            log(f"cleanup: {error}")
    results["seconds"] = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
    path = benchlib.write_results(results, args.out, "wifi", started)
    a = results["association_to_path_ms"]
    d = results["disassociation_to_unreachable_ms"]
    print(f"{'measure':52} {'median':>9} {'p90':>9} {'max':>9} {'n':>4}")
    rows = [("association -> reach path with SSID and cost", a["reach"]),
            ("association -> ip monitor LOWER_UP (no SSID, no cost)", a["ip_monitor_lower_up"])]
    for case, words in (("station_leaves", "station leaves"), ("access_point_ends", "AP ends it")):
        rows += [(f"{words} -> reach unreachable", d[case]["reach"]),
                 (f"{words} -> reach --no-wifi-facts unreachable", d[case]["reach_no_wifi_facts"]),
                 (f"{words} -> ip monitor NO-CARRIER", d[case]["ip_monitor_no_carrier"])]
    for label, row in rows:
        print(f"{label:52} {row.get('median_ms', '-'):>9} {row.get('p90_ms', '-'):>9} {row.get('max_ms', '-'):>9} {row['count']:>4}")
    print(f"reach CPU: {results['cpu_ms']['reach']} ms for {changes['reach']} path changes with Wi-Fi facts, "
          f"{results['cpu_ms']['bare']} ms for {changes['bare']} without: Wi-Fi facts add "
          f"{results['wifi_cpu_ms_per_path_change']} ms per path change, {results['wifi_cpu_ms_per_association_change']} ms per (dis)association")
    if results.get("emulation_slowdown"):
        factor = results["emulation_slowdown"]
        print(f"the emulated CPU is {factor}x slower than the host's (calibration): Wi-Fi facts would add about "
              f"{results['wifi_cpu_ms_per_path_change'] / factor:.3f} ms per path change natively")
    for label, key in (("idle, associated, before the cycles", "idle_memory_associated_added_kib"), ("idle after the cycles", "idle_memory_added_kib")):
        added = results[key]
        print(f"memory with Wi-Fi facts minus without, {label}: RSS {added['rss']:+} KiB, of which anonymous {added['anonymous']:+} KiB "
              f"and file-backed (code pages, shared) {added['file']:+} KiB")
    print(f"  after the cycles: with {rss['reach']}, without {rss['bare']}")
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
