#!/bin/sh
# systemd suite, run inside the VM with systemd as PID 1:
#   scripts/vmlab/vmlab.py run --systemd --env REACH_DEB=.build-deb/reach_V_A.deb -- scripts/vmlab/suites/systemd.sh
# Installs the Debian package (its files and its postinst) into the VM's writable root and runs
# its units under the real systemd: READY with the first path and the STATUS= line, the sandbox
# (only the state directory and ReadWritePaths= are writable, only CAP_CHOWN and CAP_FOWNER),
# the watchdog killing and restarting a stopped daemon, reach-wait-online@unmetered.service
# holding a unit until the path is unmetered, `systemctl stop` checkpointing a transfer within
# 5 s, and the User=reach variant resuming it. One line per case, then "vm-systemd: N passed,
# M failed".
set -u
cd "$(dirname "$0")/../../.." || exit 1
. scripts/vmlab/guest/suite.sh
suite_name=vm-systemd
trap 'suite_finish; exit $?' EXIT
trap 'exit 130' INT TERM
deb=${REACH_DEB:-}
server=${REACH_TESTSERVER:-.build/debug/reach-testserver}
[ -f "$deb" ] || { fail setup "no package at '$deb' (REACH_DEB)"; exit 1; }
[ -x "$server" ] || { fail setup "no test server at $server"; exit 1; }
[ "$(cat /proc/1/comm)" = systemd ] || { fail setup "PID 1 is $(cat /proc/1/comm), not systemd (vmlab.py run --systemd)"; exit 1; }

show() { systemctl show -p "$2" --value "$1"; }
main_pid() { show reach.service MainPID; }
# From /: a job's working directory is the client's, and the repository may sit in /tmp, which
# the service does not share (PrivateTmp=yes; see the private-tmp case).
queue() { (cd / && reach queue "$@"); }
# job_state ID: the job's state from `reach queue show ID --json`.
job_state() { queue show "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["job"]["state"])'; }
job_field() { queue show "$1" --json | python3 -c "import json,sys; j=json.load(sys.stdin)['job']; print($2)"; }
journal() { journalctl -u reach.service --no-pager -n 15 -o cat 2>/dev/null | sed 's/^/# journal: /'; }

# 1. The package, installed by dpkg (its dependencies are the host root's): files where it
#    says, its postinst run under a running systemd, nothing enabled or started.
dpkg -i "$deb" >/tmp/dpkg.log 2>&1 || { fail install "dpkg -i failed: $(tail -5 /tmp/dpkg.log)"; exit 1; }
if [ -x /usr/bin/reach ] && [ "$(systemctl is-active reach.service)" != active ] && systemctl cat reach.service >/dev/null 2>&1 && [ "$(systemctl is-enabled reach.service)" = disabled ] &&
    [ "$(systemctl is-enabled 'reach-wait-online@unmetered.service' 2>&1)" != enabled ]; then
    ok install
    echo "# $(reach --version); units: $(systemctl list-unit-files 'reach*' --no-legend | tr -s ' ' | tr '\n' ';')"
else
    fail install "units not known to systemd or enabled: $(systemctl is-enabled reach.service 2>&1)"
fi

# systemd-analyze verify on the installed units, their Documentation= pages included.
verified=$(systemd-analyze verify reach.service 'reach-wait-online@unmetered.service' 2>&1 | grep -E 'reach' || true)
[ -z "$verified" ] && ok verify || fail verify "$verified"

# The network: a metered modem (wwan0) carries the default route; eth9 comes later.
cat >/etc/reach/reach.conf <<'EOF'
wwan0 = cellular, expensive
eth9  = wired
EOF
modprobe dummy && ip link add wwan0 type dummy && ip addr add 10.64.0.6/30 dev wwan0 && ip link set wwan0 up &&
    ip route add default via 10.64.0.5 dev wwan0 metric 700 || { fail setup "cannot make wwan0"; exit 1; }
ip link set lo up

# 2. READY with the first path: `systemctl start` returns once the daemon said READY=1.
started=$(date +%s%N)
if systemctl start reach.service; then
    took=$((($(date +%s%N) - started) / 1000000))
    status_text=$(show reach.service StatusText)
    status_shown=$(systemctl status reach.service --no-pager 2>&1 | grep 'Status:')
    case "$status_text" in
    "cellular via wwan0"*) ok ready ;;
    *) fail ready "StatusText '$status_text'" ;;
    esac
    echo "# systemctl start: ${took} ms; systemctl status:$status_shown"
    case "$status_shown" in *"cellular via wwan0"*) ok status-line ;; *) fail status-line "no Status: line in systemctl status" ;; esac
else
    fail ready "systemctl start failed"
    journal
    exit 1
fi

# 2a. An upgrade restarts the running daemon (postinst configure with the old version): the
#     old binary does not run on beside the new GIO module. Reinstalling the package is the
#     same maintainer-script path as an upgrade to a newer version.
#     The host root may come from a container image whose policy-rc.d (exit 101) forbids
#     maintainer scripts to touch services: a real system has none, so it is set aside.
[ -e /usr/sbin/policy-rc.d ] && mv /usr/sbin/policy-rc.d /usr/sbin/policy-rc.d.vmlab
before_pid=$(main_pid)
if dpkg -i "$deb" >/tmp/dpkg-upgrade.log 2>&1; then
    after_pid=$(main_pid)
    echo "# upgrade: MainPID $before_pid -> $after_pid, $(systemctl is-active reach.service)"
    if [ "$after_pid" != "$before_pid" ] && [ "$after_pid" != 0 ] && [ "$(systemctl is-active reach.service)" = active ]; then
        ok upgrade-restarts
    else
        fail upgrade-restarts "MainPID $before_pid -> $after_pid, $(systemctl is-active reach.service)"
    fi
else
    fail upgrade-restarts "dpkg -i of the same package failed: $(tail -5 /tmp/dpkg-upgrade.log)"
fi
[ -e /usr/sbin/policy-rc.d.vmlab ] && mv /usr/sbin/policy-rc.d.vmlab /usr/sbin/policy-rc.d

# 2b. PrivateTmp=yes: a job added from a shell in the host's /tmp is refused at once, saying why.
mkdir -p /tmp/build
refusal=$(cd /tmp/build && reach queue add run -- make 2>&1)
code=$?
echo "# private tmp: exit $code: $refusal"
case "$code $refusal" in
"64 "*"'/tmp/build' does not exist for the daemon"*PrivateTmp=yes*) ok private-tmp ;;
*) fail private-tmp "exit $code: $refusal" ;;
esac

# 3. The sandbox: capabilities, and where the daemon (and its commands) may write.
capabilities=$(sed -n 's/^CapEff:\t*//p' "/proc/$(main_pid)/status")
[ "$capabilities" = 0000000000000009 ] && ok capabilities || fail capabilities "CapEff $capabilities (want CAP_CHOWN|CAP_FOWNER = 9)"
mkdir -p /srv/reach-dl /srv/elsewhere
mkdir -p /run/systemd/system/reach.service.d
printf '[Service]\nReadWritePaths=/srv/reach-dl\n' >/run/systemd/system/reach.service.d/50-paths.conf
systemctl daemon-reload && systemctl restart reach.service || { fail sandbox "restart with ReadWritePaths failed"; journal; }
sandbox_ok=1
for target in /var/lib/reach/probe /srv/reach-dl/probe /srv/elsewhere/probe /etc/reach/probe /usr/local/probe /root/probe; do
    # One attempt: a write the sandbox refuses fails the job at once.
    id=$(queue add run --retries 1 -- sh -c "echo x > $target")
    vm_wait "[ \"\$(job_state $id)\" = succeeded ] || [ \"\$(job_state $id)\" = failed ]" 30 || true
    state=$(job_state "$id")
    written=$([ -e "$target" ] && echo written || echo absent)
    case "$target" in
    /var/lib/reach/* | /srv/reach-dl/*) want="succeeded written" ;;
    *) want="failed absent" ;;
    esac
    echo "# sandbox: a command writing $target: $state, $written"
    [ "$state $written" = "$want" ] || { sandbox_ok=0; fail sandbox "$target: $state $written, want $want"; }
    rm -f "$target" 2>/dev/null
done
[ $sandbox_ok = 1 ] && ok sandbox

# 4. The watchdog: a daemon that stops answering is killed (SIGABRT) and started again.
old=$(main_pid)
restarts=$(show reach.service NRestarts)
kill -STOP "$old"
if vm_wait "[ \"\$(main_pid)\" != $old ] && [ \"\$(main_pid)\" != 0 ] && [ \"\$(show reach.service ActiveState)\" = active ]" 90; then
    echo "# watchdog: pid $old stopped; restarted as $(main_pid), NRestarts $restarts -> $(show reach.service NRestarts)"
    journalctl -u reach.service --no-pager -o cat | grep -i -m1 watchdog | sed 's/^/# journal: /'
    queue list >/dev/null && ok watchdog || fail watchdog "the restarted daemon does not answer"
else
    fail watchdog "pid $old was not replaced within 90 s"
    journal
fi

# 5. reach-wait-online@unmetered.service holds a unit ordered after it until the path is unmetered.
cat >/run/systemd/system/reach-consumer.service <<'EOF'
[Unit]
Wants=reach-wait-online@unmetered.service
After=reach-wait-online@unmetered.service
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'date +%%s%%N > /run/reach-consumer-ran'
EOF
systemctl daemon-reload
systemctl start --no-block reach-consumer.service
sleep 4
held_state=$(systemctl is-active 'reach-wait-online@unmetered.service')
if [ ! -e /run/reach-consumer-ran ] && [ "$held_state" = activating ]; then
    unmetered_at=$(date +%s%N)
    ip link add eth9 type dummy && ip addr add 192.168.50.2/24 dev eth9 && ip link set eth9 up &&
        ip route add default via 192.168.50.1 dev eth9 metric 100
    if vm_wait "[ -e /run/reach-consumer-ran ]" 30; then
        echo "# wait-online: held $held_state while only wwan0 (metered) routed; the consumer ran $((($(cat /run/reach-consumer-ran) - unmetered_at) / 1000000)) ms after eth9's route"
        ok wait-online
    else
        fail wait-online "the consumer did not run after the path became unmetered ($(systemctl is-active 'reach-wait-online@unmetered.service'))"
    fi
else
    fail wait-online "not held: consumer ran=$([ -e /run/reach-consumer-ran ] && echo yes || echo no), wait $held_state"
fi

# 6. systemctl stop: a transfer is checkpointed and the daemon exits 0 within 5 s.
mkdir -p /tmp/www && head -c 8000000 /dev/urandom >/tmp/www/big.bin
suite_background "$server" --root /tmp/www --host 127.0.0.1 --port 18080
vm_wait "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 18080), 1)'" 20 || fail stop "the test server did not start"

# 6a. CAP_CHOWN and CAP_FOWNER: a download replacing a file another user owns keeps its owner and mode.
head -c 100000 /dev/urandom >/tmp/www/small.bin
echo old >/srv/reach-dl/owned.bin && chown nobody:nogroup /srv/reach-dl/owned.bin && chmod 0640 /srv/reach-dl/owned.bin
replaced=$(queue add get --retries 1 "http://127.0.0.1:18080/small.bin" -o /srv/reach-dl/owned.bin)
vm_wait "[ \"\$(job_state $replaced)\" = succeeded ] || [ \"\$(job_state $replaced)\" = failed ]" 30 || true
owned="$(job_state "$replaced") $(stat -c '%U:%G %a' /srv/reach-dl/owned.bin)"
echo "# ownership: replacing nobody's 0640 file: $owned; leftovers: $(ls /srv/reach-dl | grep -c part || true) .part files"
if [ "$owned" = "succeeded nobody:nogroup 640" ] && cmp -s /tmp/www/small.bin /srv/reach-dl/owned.bin; then
    ok ownership
else
    fail ownership "$owned"
fi

download=$(queue add get "http://127.0.0.1:18080/big.bin?slow=300000" -o /var/lib/reach/big.bin)
vm_wait "[ \"\$(job_field $download 'j.get(\"progress\",{}).get(\"bytes\",0) if isinstance(j.get(\"progress\"),dict) else 0')\" -gt 300000 ] 2>/dev/null || [ -s /var/lib/reach/big.bin.part ]" 30 || true
stopping=$(date +%s%N)
systemctl stop reach.service
took=$((($(date +%s%N) - stopping) / 1000000))
result=$(show reach.service Result)
code=$(show reach.service ExecMainStatus)
part=$(stat -c %s /var/lib/reach/big.bin.part 2>/dev/null || echo 0)
echo "# stop: ${took} ms, Result=$result ExecMainStatus=$code; big.bin.part $part bytes, resume record $([ -s /var/lib/reach/big.bin.part.json ] && echo kept || echo missing)"
if [ "$took" -le 5000 ] && [ "$result" = success ] && [ "$code" = 0 ] && [ "$part" -gt 0 ] && [ -s /var/lib/reach/big.bin.part.json ]; then
    ok stop
else
    fail stop "took ${took} ms, Result=$result, status $code, part $part"
    journal
fi

# 7. The User=reach variant: systemd's directories are the daemon's; the checkpointed
#    download resumes there and root's `reach queue` finds the socket.
useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin reach 2>/dev/null
printf '[Service]\nUser=reach\n' >/run/systemd/system/reach.service.d/60-user.conf
systemctl daemon-reload
if systemctl start reach.service; then
    owner=$(stat -c %U /var/lib/reach)
    uid=$(sed -n 's/^Uid:\t*\([0-9]*\).*/\1/p' "/proc/$(main_pid)/status")
    vm_wait "[ \"\$(job_state $download)\" = succeeded ]" 60 || true
    state=$(job_state "$download")
    echo "# user: daemon uid $uid, /var/lib/reach owned by $owner, socket $(stat -c '%U %a' /run/reach/reach.sock), the download $state"
    if [ "$uid" = "$(id -u reach)" ] && [ "$owner" = reach ] && [ "$state" = succeeded ] && cmp -s /tmp/www/big.bin /var/lib/reach/big.bin; then
        ok user-variant
    else
        fail user-variant "uid $uid, owner $owner, download $state"
        journal
    fi
else
    fail user-variant "systemctl start with User=reach failed"
    journal
fi
systemctl stop reach.service
