# The Debian package's checks, sourced by Tests/System/run-checks INSIDE the container that scripts/deb-test boots on a
# pristine Debian 12 root (minbase, systemd, dbus, avahi-daemon): installation with apt-get as a user would do it,
# then, after the service checks of checks.sh, removal and purge. apt-get never downloads here (the container's only
# network is the test LAN): the driver fetched every archive the root lacks into its apt cache before the boot.
#
# Inputs (from run-checks): PACKAGE (the .deb's path in the container), VERSION, PREFIX (/usr).
# shellcheck shell=bash
# No --no-download (apt then refuses a .deb given by path): every archive is in the cache, and the container could
# not reach a mirror anyway.
APT_OFFLINE=(-y -q -o Dpkg::Use-Pty=0)
export DEBIAN_FRONTEND=noninteractive

# Whether a peerscand or peerscan-web process, or any process of their users, runs (the pristine root has no procps:
# no pgrep).
daemon_running() {
    local uid proc
    local user
    grep -qx -e peerscand -e peerscan-web -e peerscan-alerts /proc/[0-9]*/comm 2>/dev/null && return 0
    for user in peerscan peerscan-web; do
        uid=$(id -u "$user" 2>/dev/null) || continue
        for proc in /proc/[0-9]*; do [ "$(stat -c %u "$proc" 2>/dev/null)" = "$uid" ] && return 0; done
    done
    return 1
}

# 0. `apt-get install ./peerscan_VERSION_ARCH.deb` resolves the Depends from Debian's archive and succeeds; the
# postinst created the user (systemd-sysusers), enabled and started the socket, and left the service to the socket;
# every library the binaries need is there (the pristine root had none of them but libc's); the Prometheus alerting
# rules are where docs/metrics.md says.
check_package_install() {
    local log=$RESULTS/apt-install.log missing
    apt-get install "${APT_OFFLINE[@]}" "$PACKAGE" > "$log" 2>&1 || { echo "apt-get install failed: $(tail -n 5 "$log")"; return 1; }
    [ "$(dpkg-query -W -f='${Status}' peerscan)" = "install ok installed" ] || { echo "dpkg: $(dpkg-query -W -f='${Status}' peerscan)"; return 1; }
    getent passwd peerscan >/dev/null || { echo "the postinst created no user peerscan"; return 1; }
    [ "$(systemctl is-enabled peerscand.socket)" = enabled ] || { echo "socket $(systemctl is-enabled peerscand.socket)"; return 1; }
    [ "$(systemctl is-active peerscand.socket)" = active ] || { echo "socket $(systemctl is-active peerscand.socket) after install"; return 1; }
    [ "$(systemctl is-enabled "$UNIT")" = disabled ] || { echo "service is $(systemctl is-enabled "$UNIT"), not disabled"; return 1; }
    [ "$(systemctl is-active "$UNIT")" = inactive ] || { echo "service $(systemctl is-active "$UNIT") before any client"; return 1; }
    missing=$(ldd "$PREFIX/bin/peerscand" "$PREFIX/bin/peerscanctl" "$PREFIX/bin/peerscan-alerts" | grep 'not found')
    [ -x "$PREFIX/bin/peerscan-alerts" ] && [ -f "$PREFIX/share/man/man8/peerscan-alerts.8.gz" ] \
        && [ -f /usr/share/doc/peerscan/peerscan-alerts-egress.conf ] \
        || { echo "peerscan-alerts, its manual page or its egress drop-in is missing"; return 1; }
    # The alerts' sender is opt-in (it needs /etc/peerscan/notify): installed, not enabled, not running.
    [ "$(systemctl is-enabled peerscan-alerts.service)" = disabled ] \
        || { echo "peerscan-alerts.service is $(systemctl is-enabled peerscan-alerts.service), not disabled"; return 1; }
    [ -z "$missing" ] || { echo "libraries missing: $missing"; return 1; }
    # libcurl is loaded by peerscan-alerts' first request, not linked (docs/packaging.md, "Size"): the Depends brought it.
    ! ldd /usr/lib/peerscan/peerscan | grep -q libcurl || { echo "the executable links libcurl"; return 1; }
    ldconfig -p | grep -q 'libcurl\.so\.4 ' || { echo "libcurl.so.4 is not installed (Depends: libcurl4)"; return 1; }
    grep -q '^  - name: peerscan$' "$PREFIX/share/peerscan/peerscan-rules.yml" 2>/dev/null \
        || { echo "no Prometheus rules at $PREFIX/share/peerscan/peerscan-rules.yml"; return 1; }
    echo "installed $(dpkg-query -W -f='${Version} (${Installed-Size} KiB installed); Depends: ${Depends}' peerscan);" \
        "apt added: $(sed -n 's/^Setting up \([^ ]*\) .*/\1/p' "$log" | tr '\n' ' ')socket enabled+active, service inactive"
}

# The checks' own tools (python3 for JSON, mosquitto for the MQTT drop-in's check), installed only after the
# package's check so that nothing of theirs can satisfy a library the package forgot to depend on. policy-rc.d keeps
# their services from starting.
check_test_tools() {
    local log=$RESULTS/apt-tools.log status
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    apt-get install "${APT_OFFLINE[@]}" --no-install-recommends python3 mosquitto mosquitto-clients > "$log" 2>&1
    status=$?
    rm -f /usr/sbin/policy-rc.d
    [ $status -eq 0 ] || { echo "apt-get install of the test tools failed: $(tail -n 5 "$log")"; return 1; }
    echo "python3, mosquitto, mosquitto-clients installed for the checks"
}

# Anything of peerscan's left on the file system, but what the checks or the test itself made and the apt lists.
leftovers() {
    find / -xdev \( -path /proc -o -path /sys -o -path /var/lib/peerscan-system-test -o -path /usr/local/lib/peerscan-system-test \
        -o -path /var/log/journal -o -name '*peerscan-system-test*' \) -prune -o -name '*peerscan*' -print 2>/dev/null
}

# 12. `apt-get remove peerscan`: the sockets and the services are stopped (peerscan-web's too, which check web
# enabled and started), no daemon runs, the binaries and units are gone (not-found: no mask, no unit file); the state
# directories stay until purge (the device registry is the user's data), and so do the users and group.
check_package_remove() {
    local log=$RESULTS/apt-remove.log left
    apt-get remove "${APT_OFFLINE[@]}" peerscan > "$log" 2>&1 || { echo "apt-get remove failed: $(tail -n 5 "$log")"; return 1; }
    wait_for 10 eval '! daemon_running' || { echo "peerscand or peerscan-web (or a process of their users) still running"; return 1; }
    for unit in peerscand.socket "$UNIT" peerscan-web.socket peerscan-web.service peerscan-alerts.service; do
        [ "$(systemctl is-active "$unit")" = inactive ] || { echo "$unit $(systemctl is-active "$unit") after remove"; return 1; }
        [ "$(systemctl show -P LoadState "$unit")" = not-found ] \
            || { echo "$unit still loaded: $(systemctl show -P LoadState "$unit")"; return 1; }
    done
    [ ! -e "$PREFIX/bin/peerscand" ] && [ ! -e /run/peerscan ] || { echo "binary or /run/peerscan left"; return 1; }
    [ -d /var/lib/peerscan ] && [ -f /var/lib/peerscan-web/token ] \
        || { echo "a state directory went with remove (should stay until purge)"; return 1; }
    getent passwd peerscan >/dev/null || { echo "user peerscan removed"; return 1; }
    # Until purge dpkg keeps the package's file list and postrm (state config-files), and deb-systemd-helper remembers
    # that the socket was enabled (its state and the now dangling sockets.target.wants link), so that a reinstallation
    # keeps the admin's choice.
    left=$(leftovers | grep -v -e '^/var/lib/peerscan\(-web\)\?\(/\|$\)' -e '^/var/lib/dpkg/info/peerscan\.' \
        -e '^/var/lib/systemd/deb-systemd-helper-enabled/' \
        -e '^/etc/systemd/system/sockets.target.wants/peerscan\(d\|-web\)\.socket$')
    [ -z "$left" ] || { echo "left after remove: $left"; return 1; }
    echo "stopped; no peerscand, no peerscan-web, no process of their users; binaries, units, /run/peerscan gone; kept: /var/lib/peerscan" \
        "($(find /var/lib/peerscan -type f | wc -l) files), user peerscan; dpkg: $(dpkg-query -W -f='${Status}' peerscan);" \
        "records until purge: $(leftovers | grep -v '^/var/lib/peerscan\(/\|$\)' | tr '\n' ' ')"
}

# 13. `apt-get purge peerscan`: the state directory goes too and dpkg forgets the package; what stays is what Debian's
# policy keeps (the system user and group: files may still belong to them).
check_package_purge() {
    local log=$RESULTS/apt-purge.log left status
    apt-get purge "${APT_OFFLINE[@]}" peerscan > "$log" 2>&1 || { echo "apt-get purge failed: $(tail -n 5 "$log")"; return 1; }
    [ ! -e /var/lib/peerscan ] || { echo "/var/lib/peerscan left after purge"; return 1; }
    status=$(dpkg-query -W -f='${Status}' peerscan 2>/dev/null)
    [ -z "$status" ] || [ "$status" = "unknown ok not-installed" ] || { echo "dpkg still knows peerscan: $status"; return 1; }
    daemon_running && { echo "peerscand running after purge"; return 1; }
    left=$(leftovers)
    [ -z "$left" ] || { echo "left after purge: $left"; return 1; }
    echo "state directory gone, dpkg forgot the package, no file named *peerscan* left;" \
        "kept by policy: user $(getent passwd peerscan | cut -d: -f1,3), group $(getent group peerscan | cut -d: -f1,3)"
}
