#!/bin/sh
# The radio guest's second stage, run by /init after switch_root into the overlay over the host's root (as root, no
# systemd, no udev). Environment from the kernel's command line: RADIO_MODULES (the extracted kernel's modules),
# RADIO_SETUP (air.sh's path). The host's harness (testlan/radio/guest.py) shares the run's folder read-write as
# `results` (job.sh, the command to run, is there) and reads three virtio-serial ports: `stdout` and `stderr` (the
# command's) and `control` (`booted SECONDS`, `ready SECONDS`, `status N`). Whatever happens, the guest powers off.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

power_off() {
    sync
    echo o > /proc/sysrq-trigger
    sleep 10
}
trap power_off EXIT

for dir in /run /tmp /var/tmp /var/log; do mount -t tmpfs tmpfs "$dir"; done
mkdir -p /dev/shm /dev/pts /run/results
mount -t tmpfs tmpfs /dev/shm
mount -t devpts devpts /dev/pts
chmod 1777 /tmp /var/tmp /dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /run/results || exit 1
mkdir -p "/usr/lib/modules"
ln -sfn "$RADIO_MODULES" "/usr/lib/modules/$(uname -r)"
ip link set lo up

mkdir -p /run/ports
for port in /sys/class/virtio-ports/*; do
    ln -s "/dev/${port##*/}" "/run/ports/$(cat "$port/name")"
done
uptime() { cut -d' ' -f1 /proc/uptime; }
echo "booted $(uptime)" > /run/ports/control

. "$RADIO_SETUP"
if ! air_up > /run/results/setup.log 2>&1; then
    cat /run/results/setup.log > /run/ports/stderr
    echo 125 > /run/results/status
    echo "status 125" > /run/ports/control
    exit 1
fi
echo "ready $(uptime)" > /run/ports/control

RADIO_GUEST=1 RADIO_RESULTS=/run/results sh /run/results/job.sh > /run/ports/stdout 2> /run/ports/stderr < /dev/null
status=$?
echo "$status" > /run/results/status
echo "status $status" > /run/ports/control
sleep 1  # lets qemu pass the line on before the power goes
