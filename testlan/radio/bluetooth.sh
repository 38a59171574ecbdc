# The radio guest's Bluetooth (POSIX sh, in the guest only: never run on the host), sourced by a test's job:
# bluetooth_up starts a system bus (dbus-daemon, Debian's policy from /etc/dbus-1), btvirt's two emulated LE
# controllers (hci_vhci; hci0 00:AA:01:00:00:00 the scanner, hci1 00:AA:01:01:00:01 the advertiser) and bluetoothd
# (`-n -d`, its log in /var/log/bluetoothd.log), and waits until bluetoothd has both adapters on the bus.

# btmgmt prints nothing without a tty: run it under script(1).
btmgmt_tty() { script -qec "timeout -s KILL 10 btmgmt $*" /dev/null; }

bluetooth_up() (
    set -e
    modprobe hci_vhci
    mkdir -p /run/dbus
    dbus-daemon --system --fork --nopidfile
    btvirt -L -l2 > /var/log/btvirt.log 2>&1 &
    # Both controllers registered with the management interface. Under TCG the kernel's first HCI_Reset to hci0
    # can time out (`hci0: Opcode 0x0c03 failed: -110`) before btvirt serves its end; such a controller stays in
    # sysfs but never reaches mgmt (`Invalid Index`) nor bluetoothd: opening it again (HCIDEVUP) redoes its setup.
    tries=60
    until [ "$(btmgmt_tty info 2>/dev/null | grep -c -E '^hci[01]:')" -eq 2 ]; do
        tries=$((tries - 1)); [ "$tries" -gt 0 ] || { echo "bluetooth: hci0 and hci1 not both ready" >&2; exit 1; }
        if [ $((tries % 10)) -eq 0 ]; then
            for name in hci0 hci1; do
                btmgmt_tty info 2>/dev/null | grep -q "^$name:" || hciconfig "$name" up || true
            done
        fi
        sleep 0.5
    done
    bluetoothd -n -d > /var/log/bluetoothd.log 2>&1 &
    tries=100
    until [ "$(busctl --system tree org.bluez 2>/dev/null | grep -c -E '/org/bluez/hci[01]$')" -eq 2 ]; do
        tries=$((tries - 1)); [ "$tries" -gt 0 ] || { echo "bluetooth: bluetoothd lacks hci0 or hci1" >&2; exit 1; }
        sleep 0.2
    done
    echo "bluetooth: bluetoothd up with hci0 and hci1"
)
