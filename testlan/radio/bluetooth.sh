# The radio guest's Bluetooth (POSIX sh, in the guest only: never run on the host), sourced by a test's job:
# bluetooth_up starts a system bus (dbus-daemon, Debian's policy from /etc/dbus-1), btvirt's three emulated LE
# controllers (hci_vhci; hci0 00:AA:01:00:00:00 the scanner, hci1 00:AA:01:01:00:01 the advertiser, hci2
# 00:AA:01:02:00:02 the flood's) and bluetoothd (`-n -d`, its log in /var/log/bluetoothd.log), and waits until
# bluetoothd has the three adapters on the bus.

# btmgmt prints nothing without a tty: run it under script(1).
btmgmt_tty() { script -qec "timeout -s KILL 10 btmgmt $*" /dev/null; }

bluetooth_up() (
    set -e
    modprobe hci_vhci
    mkdir -p /run/dbus
    dbus-daemon --system --fork --nopidfile
    # All three controllers registered with the management interface. The kernel gives btvirt 2 s (HCI_CMD_TIMEOUT) to
    # answer its first HCI_Reset; a TCG guest on a loaded host can miss it (`hci0: Opcode 0x0c03 failed: -110`), and
    # such a controller stays in sysfs but never reaches mgmt (`Invalid Index`) nor bluetoothd. Then btvirt is
    # restarted: its controllers go with it, and the new ones get the freed indexes hci0..hci2 again.
    attempt=1
    while :; do
        btvirt -L -l3 >> /var/log/btvirt.log 2>&1 &
        btvirt=$!
        tries=30
        until [ "$(btmgmt_tty info 2>/dev/null | grep -c -E '^hci[012]:')" -eq 3 ]; do
            tries=$((tries - 1)); [ "$tries" -gt 0 ] || break
            sleep 0.5
        done
        [ "$tries" -eq 0 ] || break
        [ "$attempt" -lt 4 ] || { echo "bluetooth: hci0..hci2 not all ready after $attempt starts" >&2; exit 1; }
        echo "bluetooth: hci0..hci2 not all ready; restarting btvirt" >&2
        kill "$btvirt"; wait "$btvirt" || true
        until [ -z "$(ls /sys/class/bluetooth 2>/dev/null)" ]; do sleep 0.2; done
        attempt=$((attempt + 1))
    done
    bluetoothd -n -d > /var/log/bluetoothd.log 2>&1 &
    tries=100
    until [ "$(busctl --system tree org.bluez 2>/dev/null | grep -c -E '/org/bluez/hci[012]$')" -eq 3 ]; do
        tries=$((tries - 1)); [ "$tries" -gt 0 ] || { echo "bluetooth: bluetoothd lacks hci0, hci1 or hci2" >&2; exit 1; }
        sleep 0.2
    done
    echo "bluetooth: bluetoothd up with hci0, hci1 and hci2"
)
