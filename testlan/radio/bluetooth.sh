# The radio guest's Bluetooth (POSIX sh, in the guest only: never run on the host), sourced by a test's job:
# bluetooth_up starts a system bus (dbus-daemon, Debian's policy from /etc/dbus-1), btvirt's two emulated LE
# controllers (hci_vhci; hci0 00:AA:01:00:00:00 the scanner, hci1 00:AA:01:01:00:01 the advertiser) and bluetoothd
# (`-n -d`, its log in /var/log/bluetoothd.log), and waits until bluetoothd has both adapters on the bus.
bluetooth_up() (
    set -e
    modprobe hci_vhci
    mkdir -p /run/dbus
    dbus-daemon --system --fork --nopidfile
    btvirt -L -l2 > /var/log/btvirt.log 2>&1 &
    tries=50
    until [ -e /sys/class/bluetooth/hci1 ]; do
        tries=$((tries - 1)); [ "$tries" -gt 0 ] || { echo "bluetooth: no hci1" >&2; exit 1; }
        sleep 0.2
    done
    bluetoothd -n -d > /var/log/bluetoothd.log 2>&1 &
    tries=100
    until busctl --system tree org.bluez 2>/dev/null | grep -q /org/bluez/hci1; do
        tries=$((tries - 1)); [ "$tries" -gt 0 ] || { echo "bluetooth: bluetoothd has no hci1" >&2; exit 1; }
        sleep 0.2
    done
    echo "bluetooth: bluetoothd up with hci0 and hci1"
)

# btmgmt prints nothing without a tty: run it under script(1).
btmgmt_tty() { script -qec "timeout -s KILL 10 btmgmt $*" /dev/null; }
