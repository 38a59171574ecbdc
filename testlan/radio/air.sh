# The radio guest's air, sourced by inside.sh (POSIX sh, in the guest only: never run on the host). air_up loads
# mac80211_hwsim with RADIO_RADIOS radios (wlan0…; radio N's address is 02:00:00:00:0N:00) in the CN regulatory
# domain (2.4 and 5 GHz: a full scan takes ~2 s; US adds 6 GHz and ~14 s) and starts one hostapd on every
# hostapd/*.conf beside this file, waiting until each access point is enabled. Which radio does what is described
# once, in air.py (the tests' fixtures read it); later/ holds the access points the tests start themselves.
RADIO_DIR=$(dirname "$RADIO_SETUP")

wait_for() {  # wait_for SECONDS WHAT COMMAND…: polls COMMAND every 0.2 s
    seconds=$1 what=$2
    shift 2
    tries=$((seconds * 5))
    until "$@"; do
        tries=$((tries - 1))
        if [ "$tries" -le 0 ]; then
            echo "air: timed out after ${seconds}s waiting for $what" >&2
            return 1
        fi
        sleep 0.2
    done
}


air_up() (  # a subshell: set -e stays in it
    set -e
    modprobe cfg80211
    timeout -s KILL 10 iw reg set CN
    wait_for 10 "regulatory domain CN" sh -c 'iw reg get | grep -q "country CN"'
    modprobe mac80211_hwsim radios="${RADIO_RADIOS:-10}"
    last=$(( ${RADIO_RADIOS:-10} - 1 ))
    wait_for 10 "wlan$last" test -e "/sys/class/net/wlan$last"
    for interface in /sys/class/net/wlan*; do ip link set "${interface##*/}" up; done
    configs=$(ls "$RADIO_DIR"/hostapd/*.conf)
    expected=$(echo "$configs" | wc -l)
    hostapd -B -P /run/hostapd.pid -t -f /var/log/hostapd.log $configs
    wait_for 30 "$expected access points enabled" sh -c "[ \"\$(grep -c AP-ENABLED /var/log/hostapd.log)\" -ge $expected ]"
    echo "air: $expected access points enabled"
)
