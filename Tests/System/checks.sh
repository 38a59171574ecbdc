# The system test's checks of the running service, sourced by Tests/System/run-checks INSIDE the container booted by
# scripts/system-test. Each check_* function prints its detail and returns 0 (pass) or not (fail); run_check records
# it. They run in the order run-checks gives because they build on each other: the first peerscanctl call is the one
# that must activate the service.
#
# Inputs (set by run-checks from the driver's $RESULTS/expect): PREFIX (where peerscan is installed: /usr/local for
# `make install`, /usr for the package), DEVICE_NAME, DEVICE_MAC, DEVICE_ADDRESS, VERSION.
# shellcheck shell=bash
CTL=$PREFIX/bin/peerscanctl
UNIT=peerscand.service

cursor() { journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p'; }
prop() { systemctl show -P "$1" "$UNIT"; }
log() { echo "system-test: $*"; }

# run_check NAME FUNCTION: runs FUNCTION; it prints its detail and returns 0 (pass) or not (fail).
run_check() {
    local name=$1 fn=$2 start detail status
    start=$(cursor)
    log "== $name"
    detail=$("$fn" 2>&1)
    status=$?
    detail=$(printf '%s' "$detail" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
    if [ $status -eq 0 ]; then
        echo "PASS $name: $detail" >> "$RESULTS/results"
    else
        echo "FAIL $name: $detail" >> "$RESULTS/results"
        journalctl -q --no-pager -o short-precise --after-cursor="$start" > "$RESULTS/journal-$name.txt" 2>&1
    fi
    log "$(tail -n 1 "$RESULTS/results")"
    return $status
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds or SECONDS pass.
wait_for() {
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do
        [ $SECONDS -ge $deadline ] && return 1
        sleep 0.2
    done
}

# 1. systemd-sysusers created the user and group from $PREFIX/lib/sysusers.d/peerscan.conf: at boot
# (systemd-sysusers.service; the driver hid any peerscan entry of the host's /etc/passwd and /etc/group from the
# container), or the package's postinst at installation.
check_sysusers() {
    local pw gr
    pw=$(getent passwd peerscan) || { echo "no user peerscan"; return 1; }
    gr=$(getent group peerscan) || { echo "no group peerscan"; return 1; }
    IFS=: read -r _ _ uid gid gecos home _ <<< "$pw"
    [ "$home" = /var/lib/peerscan ] || { echo "home $home, not /var/lib/peerscan"; return 1; }
    [ "$gecos" = "peerscan daemon" ] || { echo "gecos '$gecos'"; return 1; }
    [ "$(echo "$gr" | cut -d: -f3)" = "$gid" ] || { echo "group $gr is not the user's primary group $gid"; return 1; }
    # The driver hid the host's entries, so the user exists only if sysusers created it at this boot. Its
    # "Creating user" line may come before journald runs (then it is on the console only): not required.
    local ran logged=no
    ran="$(systemctl show -P ActiveState systemd-sysusers.service)/$(systemctl show -P Result systemd-sysusers.service)"
    if [ -n "$PACKAGE" ]; then
        # The package's postinst ran systemd-sysusers at installation (check package-install).
        ran="postinst (systemd-sysusers.service: $ran)"
    else
        [ "$ran" = active/success ] || { echo "systemd-sysusers.service: $ran"; return 1; }
    fi
    journalctl -q -b -u systemd-sysusers.service -o cat | grep -q "Creating user 'peerscan'\|Creating user peerscan" \
        && logged=yes
    echo "user peerscan uid=$uid gid=$gid home=$home created by $ran (journal line: $logged)"
}

# 2. The socket unit is listening and the service is not running until the first peerscanctl call, which starts it
# and is answered.
check_socket_activation() {
    local before after out
    [ "$(systemctl is-active peerscand.socket)" = active ] || { echo "peerscand.socket not active"; return 1; }
    before=$(systemctl is-active "$UNIT")
    [ "$before" = inactive ] || { echo "service is '$before' before the first call"; return 1; }
    out=$(timeout 30 "$CTL" list 2>&1) || { echo "first peerscanctl list failed: $out"; return 1; }
    echo "$out" | grep -E -q "scanning +on" || { echo "answer lacks 'scanning on': $out"; return 1; }
    after=$(systemctl is-active "$UNIT")
    [ "$after" = active ] || { echo "service is '$after' after the call"; return 1; }
    echo "service $before before, $after after; peerscanctl list answered ($(echo "$out" | wc -l) lines)"
}

# The version peerscand reports in org.varlink.service.GetInfo (a raw Varlink call: NUL-terminated JSON).
getinfo_version() {
    timeout 10 python3 -c '
import json, socket
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect("/run/peerscan/io.peerscan")
s.sendall(json.dumps({"method": "org.varlink.service.GetInfo"}).encode() + b"\0")
reply = b""
while not reply.endswith(b"\0"):
    chunk = s.recv(65536)
    if not chunk:
        break
    reply += chunk
print(json.loads(reply.rstrip(b"\0"))["parameters"]["version"])'
}

# 2b. One version everywhere: each program's --version (peerscand, peerscanctl, peerscan-web, peerscan-alerts: links
# to the one executable) and GetInfo say debian/changelog's version (the driver's VERSION), and so does dpkg for the
# installed package.
check_version() {
    local info package= program reported
    local -a reports=()
    for program in peerscand peerscanctl peerscan-web peerscan-alerts; do
        reports+=("$program --version:$("$PREFIX/bin/$program" --version 2>&1)")
    done
    info=$(getinfo_version 2>&1) || { echo "GetInfo failed: $info"; return 1; }
    [ -n "$PACKAGE" ] && package=$(dpkg-query -W -f='${Version}' peerscan)
    for reported in "${reports[@]}" "GetInfo:$info" ${PACKAGE:+"dpkg:$package"}; do
        [ "${reported#*:}" = "$VERSION" ] || { echo "$reported, not $VERSION (debian/changelog)"; return 1; }
    done
    echo "peerscand, peerscanctl, peerscan-web, peerscan-alerts, GetInfo${PACKAGE:+ and dpkg} all report $VERSION"
}

# 2c. Local time from the executable's own time zone data (ICU's, trimmed: scripts/icu-data): peerscanctl watch
# --timestamps in Asia/Kolkata (UTC+05:30 all year) stamps the change lines of scanning off and on +05:30; with no zone
# data it would say Z.
check_local_time() {
    local out=$RESULTS/local-time.txt line pid
    TZ=Asia/Kolkata "$CTL" watch --timestamps > "$out" 2>&1 &
    pid=$!
    wait_for 10 test -s "$out" || { kill "$pid"; echo "watch printed nothing"; return 1; }
    "$CTL" scanning off > /dev/null && "$CTL" scanning on > /dev/null
    wait_for 10 grep -q '^[0-9]\{4\}-' "$out"
    kill "$pid"; wait "$pid" 2>/dev/null
    line=$(grep -m 1 '^[0-9]\{4\}-' "$out")
    [[ "$line" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\+05:30\  ]] \
        || { echo "no change line stamped +05:30: '$line' ($(wc -l < "$out") lines)"; return 1; }
    echo "TZ=Asia/Kolkata: '${line:0:60}'"
}

status_ok() { [[ "$(prop StatusText)" =~ ^[0-9]+\ devices?,\ avahi\ running,\ scanning\ on$ ]]; }

# 3. Type=notify: READY=1 made it active/running (not activating/start), STATUS= is the documented
# "N devices, avahi running, scanning on", and the "ready" line carries the same status.
check_notify() {
    local state sub type
    type=$(prop Type); state=$(prop ActiveState); sub=$(prop SubState)
    [ "$type" = notify ] || { echo "Type=$type"; return 1; }
    [ "$state/$sub" = active/running ] || { echo "ActiveState/SubState $state/$sub"; return 1; }
    wait_for 15 status_ok || { echo "StatusText '$(prop StatusText)'"; return 1; }
    journalctl -q -b -u "$UNIT" -o cat | grep -q '^ready status=' || { echo "no 'ready status=' line"; return 1; }
    echo "Type=notify ActiveState=$state SubState=$sub StatusText='$(prop StatusText)'" \
        "WatchdogUSec=$(prop WatchdogUSec)"
}

device_seen() { timeout 10 "$CTL" list --json 2>/dev/null | grep -q "\"$DEVICE_NAME\""; }
device_has_mac() {
    timeout 10 "$CTL" list --json 2>/dev/null | python3 -c '
import json, sys
name, mac = sys.argv[1], sys.argv[2].lower()
snap = json.load(sys.stdin)
text = json.dumps(snap).lower()
sys.exit(0 if name.lower() in text and mac in text else 1)' "$DEVICE_NAME" "$DEVICE_MAC"
}

# 4. The sandbox lets everything work: peerscand reaches avahi-daemon over the D-Bus system bus and lists the real
# mDNS device the driver's responder publishes on the container's veth; it reads the kernel's neighbour table
# (AF_NETLINK) and so knows the device's MAC address; no restart, no SIGSYS, no seccomp or EPERM complaint.
check_sandbox() {
    local journal
    [ "$(systemctl is-active avahi-daemon.service)" = active ] || { echo "avahi-daemon not active"; return 1; }
    timeout 10 "$CTL" list | grep -E -q "avahi +running" || { echo "peerscanctl list: avahi not running: $("$CTL" list)"; return 1; }
    wait_for 30 device_seen || { echo "device '$DEVICE_NAME' not listed: $("$CTL" list)"; return 1; }
    wait_for 40 device_has_mac || { echo "device has no MAC $DEVICE_MAC (neighbour table): $("$CTL" list)"; return 1; }
    journal=$(journalctl -q -b -u "$UNIT" -o cat)
    # The documented fallback without CAP_NET_ADMIN ("neighbour re-probe not permitted ... fallback=datagrams") is
    # expected; a seccomp kill (SIGSYS, status=31), a failed netlink read, notify or browser is not.
    local bad='SIGSYS|status=31|seccomp|Bad system call|neighbour table unavailable|notify failed|avahi browser failed|registry unavailable|state save failed'
    if echo "$journal" | grep -E -q "$bad"; then
        echo "journal: $(echo "$journal" | grep -E "$bad")"
        return 1
    fi
    [ "$(prop NRestarts)" = 0 ] || { echo "NRestarts=$(prop NRestarts)"; return 1; }
    echo "avahi running over D-Bus; '$DEVICE_NAME' listed with MAC $DEVICE_MAC; NRestarts=0; no SIGSYS in the journal;" \
        "EPERM lines (not failures): $(echo "$journal" | grep -c 'Operation not permitted\|errno=1')"
}

# 8. Reading is open to every local user, switching is not: nobody can list but "scanning off" is refused (exit 77,
# a clear message), and the switch stays on; a member of group peerscan may switch.
check_permissions() {
    local out status
    out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 10 "$CTL" list 2>&1) \
        || { echo "nobody: list failed: $out"; return 1; }
    echo "$out" | grep -q "$DEVICE_NAME" || { echo "nobody: list lacks the device: $out"; return 1; }
    out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 10 "$CTL" scanning off 2>&1); status=$?
    [ $status -eq 77 ] || { echo "nobody: scanning off exited $status (want 77): $out"; return 1; }
    echo "$out" | grep -qi "permission\|not allowed\|denied" || { echo "nobody: unclear refusal: $out"; return 1; }
    local refusal=$out
    timeout 10 "$CTL" scanning status | grep -E -q "scanning +on" || { echo "switch changed after refusal"; return 1; }
    id psctl >/dev/null 2>&1 || useradd --no-create-home --user-group --groups peerscan --shell /usr/sbin/nologin psctl
    out=$(setpriv --reuid=psctl --regid=psctl --init-groups timeout 10 "$CTL" scanning off 2>&1) \
        || { echo "group member: scanning off failed ($?): $out"; return 1; }
    echo "$out" | grep -E -q "scanning +off" || { echo "group member: $out"; return 1; }
    out=$(setpriv --reuid=psctl --regid=psctl --init-groups timeout 10 "$CTL" scanning on 2>&1) \
        || { echo "group member: scanning on failed: $out"; return 1; }
    wait_for 30 device_seen || { echo "device not back after scanning on"; return 1; }
    echo "nobody lists; nobody's 'scanning off' refused (exit 77: $refusal); group member psctl switched off and on"
}

restarted_since() { # PID NRESTARTS: a new main process, active, NRestarts grown by one
    local pid
    pid=$(prop MainPID)
    [ "$pid" != 0 ] && [ "$pid" != "$1" ] && [ "$(prop ActiveState)" = active ] \
        && [ "$(prop SubState)" = running ] && [ "$(prop NRestarts)" = $(($2 + 1)) ]
}

# 5. A hung daemon (SIGSTOP) stops pinging the watchdog: systemd kills it after WatchdogSec= and Restart= starts a
# new one, within WatchdogSec + RestartSec + startup.
check_watchdog() {
    local pid n wd_us bound t0 elapsed
    pid=$(prop MainPID); n=$(prop NRestarts)
    [ "$pid" -gt 0 ] || { echo "the service has no main process (MainPID=$pid)"; return 1; }  # kill 0: our own group
    wd_us=$(systemd-analyze timespan "$(prop WatchdogUSec)" | sed -n 's/^ *μs: *//p')
    [ "$wd_us" -gt 0 ] 2>/dev/null || { echo "WatchdogUSec=$wd_us"; return 1; }
    bound=$((wd_us / 1000000 + 2 + 20))
    t0=$SECONDS
    kill -STOP "$pid"
    wait_for "$bound" restarted_since "$pid" "$n" \
        || { kill -CONT "$pid" 2>/dev/null; echo "no restart within ${bound}s: MainPID=$(prop MainPID) NRestarts=$(prop NRestarts) state=$(prop ActiveState)"; return 1; }
    elapsed=$((SECONDS - t0))
    journalctl -q -b -u "$UNIT" -o cat | grep -q "Watchdog timeout" || { echo "no 'Watchdog timeout' from systemd"; return 1; }
    journalctl -q -b -u "$UNIT" -o cat | grep -E -q "Main process exited, code=(killed|dumped), status=6/ABRT" \
        || { echo "the hung daemon did not die of the watchdog's SIGABRT"; return 1; }
    wait_for 15 status_ok || { echo "StatusText after restart '$(prop StatusText)'"; return 1; }
    echo "SIGSTOP pid $pid; watchdog timeout; new MainPID $(prop MainPID), NRestarts $n -> $(prop NRestarts) after ${elapsed}s (bound ${bound}s)"
}

# 6. Restart=on-failure after a crash (SIGSEGV).
check_crash_restart() {
    local pid n t0
    pid=$(prop MainPID); n=$(prop NRestarts)
    [ "$pid" -gt 0 ] || { echo "the service has no main process (MainPID=$pid)"; return 1; }  # kill 0: our own group
    t0=$SECONDS
    kill -SEGV "$pid"
    wait_for 60 restarted_since "$pid" "$n" \
        || { echo "no restart within 60s: MainPID=$(prop MainPID) NRestarts=$(prop NRestarts)"; return 1; }
    timeout 10 "$CTL" list >/dev/null || { echo "restarted daemon does not answer"; return 1; }
    journalctl -q -b -u "$UNIT" -o cat | grep -E -q "Main process exited, code=(killed|dumped), status=11/SEGV" \
        || { echo "systemd did not see it die of SIGSEGV"; return 1; }
    echo "SIGSEGV pid $pid; new MainPID $(prop MainPID), NRestarts $n -> $(prop NRestarts) after $((SECONDS - t0))s; answers"
}

# 7. journald carries the daemon's logfmt lines at the priorities docs/operations.md gives: with -p notice the notice lines
# ("avahi state", "new device", "client denied") and none of the info lines ("starting", "ready",
# "client connected", "initial browse settled"); with -p info those too. The "<N>" prefix is consumed by journald.
daemon_lines() { # PRIORITY: "PRIORITY MESSAGE" for the daemon's own lines (not systemd's about the unit)
    journalctl -q -b -u "$UNIT" -p "$1" -o json | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if e.get("_COMM") == "peerscand" or e.get("SYSLOG_IDENTIFIER") == "peerscand":
        m = e.get("MESSAGE")
        m = bytes(m).decode("utf-8", "replace") if isinstance(m, list) else m
        print(e.get("PRIORITY"), m)'
}
check_journald() {
    local notice info message
    notice=$(daemon_lines notice); info=$(daemon_lines info)
    for message in "avahi state" "new device" "client denied"; do
        echo "$notice" | grep -q "^5 $message " || { echo "-p notice lacks a priority-5 '$message' line"; return 1; }
    done
    for message in starting ready "client connected" "initial browse settled"; do
        echo "$notice" | grep -q "^[0-9] $message\( \|$\)" && { echo "-p notice shows info line '$message'"; return 1; }
        echo "$info" | grep -q "^6 $message\( \|$\)" || { echo "-p info lacks a priority-6 '$message' line"; return 1; }
    done
    echo "$notice" | grep -q "^[67] " && { echo "-p notice shows priority 6/7 lines"; return 1; }
    echo "$info" | grep -q '^[0-9] <' && { echo "a message starts with '<': the prefix was not parsed"; return 1; }
    echo "$info" | grep '^5 new device ' | grep -q "name=\"$DEVICE_NAME\"" \
        || { echo "no logfmt 'new device' line with name=\"$DEVICE_NAME\""; return 1; }
    echo "-p notice: $(echo "$notice" | wc -l) daemon lines, all priority <=5 (avahi state, new device, client denied);" \
        "-p info adds $(( $(echo "$info" | wc -l) - $(echo "$notice" | wc -l) )) info lines (starting, ready, client connected)"
}

# 9. The optional drop-in systemd/peerscand-probe.conf (CAP_NET_ADMIN): forced re-probes work in the sandbox.
check_probe_dropin() {
    local start
    mkdir -p /etc/systemd/system/peerscand.service.d
    cp $PREFIX/share/doc/peerscan/peerscand-probe.conf /etc/systemd/system/peerscand.service.d/probe.conf
    systemctl daemon-reload
    start=$(cursor)
    systemctl restart "$UNIT" || { echo "restart with the drop-in failed"; return 1; }
    [ "$(prop ActiveState)" = active ] || { echo "ActiveState=$(prop ActiveState)"; return 1; }
    wait_for 20 bash -c "journalctl -q --after-cursor='$start' -u $UNIT -o cat | grep -q '^probing .*reverify=forced'" \
        || { echo "no 'probing ... reverify=forced' line: $(journalctl -q --after-cursor="$start" -u $UNIT -o cat | grep probing)"; return 1; }
    journalctl -q --after-cursor="$start" -u "$UNIT" -o cat | grep -q "re-probe not permitted" \
        && { echo "re-probe still not permitted with CAP_NET_ADMIN"; return 1; }
    local caps
    caps=$(prop AmbientCapabilities)
    [ "$caps" = cap_net_admin ] || { echo "AmbientCapabilities='$caps'"; return 1; }
    rm -r /etc/systemd/system/peerscand.service.d
    systemctl daemon-reload
    echo "AmbientCapabilities=$caps; probing reverify=forced, no EPERM"
}

# 10. The optional drop-in systemd/peerscand-mqtt.conf: the sandbox reaches a broker (TCP), and LoadCredential=
# hands the broker's password to the service without it appearing on the command line; the devices are retained
# on the broker and the status is online.
mqtt_has_device() {
    mosquitto_sub -h 127.0.0.1 -u scanner -P s3cret -t 'peerscan/#' -F '%t %p' --retained-only -W 2 2>/dev/null \
        > /tmp/mqtt-retained; grep -q "$DEVICE_NAME" /tmp/mqtt-retained && grep -q '/status online$' /tmp/mqtt-retained
}
check_mqtt_dropin() {
    local broker_pid n args
    mkdir -p /etc/peerscan /run/system-test-mqtt /etc/systemd/system/peerscand.service.d
    mosquitto_passwd -c -b /run/system-test-mqtt/passwords scanner s3cret
    printf 'user root\nlistener 1883 127.0.0.1\nallow_anonymous false\npassword_file %s\n' \
        /run/system-test-mqtt/passwords > /run/system-test-mqtt/mosquitto.conf
    mosquitto -c /run/system-test-mqtt/mosquitto.conf > /run/system-test-mqtt/log 2>&1 &
    broker_pid=$!
    printf 'scanner\ns3cret\n' > /etc/peerscan/mqtt-credentials
    chmod 0600 /etc/peerscan/mqtt-credentials
    sed 's|mqtts://broker.example.net|mqtt://127.0.0.1:1883|' $PREFIX/share/doc/peerscan/peerscand-mqtt.conf \
        > /etc/systemd/system/peerscand.service.d/mqtt.conf
    systemctl daemon-reload
    n=$(prop NRestarts)
    systemctl restart "$UNIT" || { kill $broker_pid; echo "restart with the drop-in failed"; return 1; }
    if ! wait_for 30 mqtt_has_device; then
        kill $broker_pid
        echo "the broker holds no retained '$DEVICE_NAME' with status online: $(cat /tmp/mqtt-retained)" \
            "$(journalctl -q -b -u "$UNIT" -o cat | grep mqtt | tail -n 3)"
        return 1
    fi
    args=$(tr '\0' ' ' < "/proc/$(prop MainPID)/cmdline")
    echo "$args" | grep -q s3cret && { kill $broker_pid; echo "the password is on the command line: $args"; return 1; }
    [ "$(prop NRestarts)" = "$n" ] || { kill $broker_pid; echo "NRestarts $n -> $(prop NRestarts)"; return 1; }
    rm -r /etc/systemd/system/peerscand.service.d /etc/peerscan
    systemctl daemon-reload
    systemctl restart "$UNIT"
    kill $broker_pid
    echo "retained on the broker: $(wc -l < /tmp/mqtt-retained) topics with '$DEVICE_NAME' and status online;" \
        "password from LoadCredential= (not on the command line); $(journalctl -q -b -u "$UNIT" -o cat | grep -c '^mqtt connected') 'mqtt connected'"
}

# 11. A graceful stop: STOPPING=1 (deactivating), the "stopped" line, Result=success, the socket unit stays listening.
check_stop() {
    systemctl stop "$UNIT" 2>/dev/null || { echo "systemctl stop failed"; return 1; }
    [ "$(prop Result)" = success ] || { echo "Result=$(prop Result)"; return 1; }
    journalctl -q -b -u "$UNIT" -o cat | grep -q '^stopped$' || { echo "no 'stopped' line"; return 1; }
    [ "$(systemctl is-active peerscand.socket)" = active ] || { echo "socket not active after stop"; return 1; }
    timeout 30 "$CTL" scanning status | grep -E -q "scanning +on" || { echo "reactivation after stop failed"; return 1; }
    echo "stopped with Result=success and a 'stopped' line; the socket reactivated it"
}

