# The web page's checks, sourced by Tests/System/run-checks INSIDE the container booted by scripts/system-test:
# peerscan-web.socket (installed, not enabled: the page is opt-in) enabled and started as an admin would, the page and
# its API answered through it under the unit's sandbox, and `peerscanctl web-url`'s token opening a write.
#
# Inputs (from run-checks): PREFIX, CTL (checks.sh). Needs python3 (the test tools) for HTTP and JSON.
# shellcheck shell=bash
WEB_ADDRESS=127.0.0.1:8737

# web_request METHOD PATH [BODY [TOKEN]]: one HTTP request to the socket unit's address; prints the status, the
# Content-Security-Policy header and the body, a line each (the body last, whatever its lines).
web_request() {
    timeout 20 python3 - "$WEB_ADDRESS" "$@" <<'EOF'
import http.client, sys
address, method, path = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
headers = {"Content-Type": "application/json"} if body is not None else {}
if len(sys.argv) > 5:
    headers["Authorization"] = "Bearer " + sys.argv[5]
host, port = address.rsplit(":", 1)
connection = http.client.HTTPConnection(host, int(port), timeout=15)
connection.request(method, path, body=body, headers=headers)
response = connection.getresponse()
print(response.status)
print(response.getheader("Content-Security-Policy", ""))
print(response.read().decode(errors="replace"))
EOF
}

# The first line (the status) of web_request's output, or its whole output if it failed.
status_of() { echo "$1" | head -n 1; }

# 14. The page, opt-in: the package leaves peerscan-web.socket disabled; `systemctl enable --now` starts the socket
# only, and the first request starts the service (its user from sysusers, in the group peerscan). GET / is the page
# with the strict CSP, GET /api/snapshot is GetSnapshot's reply through peerscand, and the token `peerscanctl web-url`
# prints (from the token file the service made at its first start) opens a write (SetScanning) that a request without
# it cannot make (401).
check_web() {
    local state out csp sequence url token
    state=$(systemctl is-enabled peerscan-web.socket 2>&1)
    [ "$state" = disabled ] || { echo "peerscan-web.socket is '$state' before the admin enables it (want disabled)"; return 1; }
    out=$(systemctl enable --now peerscan-web.socket 2>&1) || { echo "enable --now failed: $out"; return 1; }
    [ "$(systemctl is-active peerscan-web.socket)" = active ] || { echo "socket $(systemctl is-active peerscan-web.socket)"; return 1; }
    state=$(systemctl is-active peerscan-web.service)
    [ "$state" = inactive ] || { echo "service is '$state' before the first request"; return 1; }

    out=$(web_request GET / 2>&1) || { echo "GET / failed: $out"; return 1; }
    [ "$(status_of "$out")" = 200 ] || { echo "GET / answered $(status_of "$out")"; return 1; }
    csp=$(echo "$out" | sed -n 2p)
    case $csp in
        "default-src 'none'; script-src 'self'"*"frame-ancestors 'none'") ;;
        *) echo "GET /: Content-Security-Policy '$csp'"; return 1 ;;
    esac
    echo "$out" | sed 1,2d | grep -q '<script type="module" src="/assets/' || { echo "GET / is not the page: $(echo "$out" | head -c 300)"; return 1; }
    [ "$(systemctl is-active peerscan-web.service)" = active ] || { echo "service $(systemctl is-active peerscan-web.service) after GET /"; return 1; }
    [ "$(systemctl show -P User peerscan-web.service)" = peerscan-web ] && getent passwd peerscan-web >/dev/null \
        || { echo "no user peerscan-web (sysusers)"; return 1; }

    out=$(web_request GET /api/snapshot 2>&1) || { echo "GET /api/snapshot failed: $out"; return 1; }
    [ "$(status_of "$out")" = 200 ] || { echo "GET /api/snapshot answered $(status_of "$out"): $out"; return 1; }
    sequence=$(echo "$out" | sed 1,2d | python3 -c 'import json, sys; print(json.load(sys.stdin)["sequence"])' 2>&1) \
        && [ "$sequence" -ge 1 ] 2>/dev/null || { echo "/api/snapshot has no sequence: $sequence"; return 1; }

    url=$("$CTL" web-url 2>&1) || { echo "peerscanctl web-url failed: $url"; return 1; }
    case $url in http://$WEB_ADDRESS/\#token=?*) ;; *) echo "web-url printed '$url'"; return 1 ;; esac
    token=${url#*#token=}
    [ "$token" = "$(cat /var/lib/peerscan-web/token)" ] || { echo "web-url's token is not the token file's"; return 1; }
    out=$(web_request POST /api/SetScanning '{"enabled": false}' 2>&1)
    [ "$(status_of "$out")" = 401 ] || { echo "a write without the token answered $(status_of "$out") (want 401)"; return 1; }
    out=$(web_request POST /api/SetScanning '{"enabled": false}' "$token" 2>&1)
    [ "$(status_of "$out")" = 200 ] || { echo "SetScanning with web-url's token answered: $out"; return 1; }
    timeout 10 "$CTL" scanning status | grep -E -q "scanning +off" || { echo "the write did not reach peerscand"; return 1; }
    out=$(web_request POST /api/SetScanning '{"enabled": true}' "$token" 2>&1)
    [ "$(status_of "$out")" = 200 ] || { echo "SetScanning on answered: $out"; return 1; }
    timeout 10 "$CTL" scanning status | grep -E -q "scanning +on" || { echo "scanning not back on"; return 1; }
    echo "socket disabled, then enabled+active; service inactive until GET / (200, CSP), then active as peerscan-web;" \
        "/api/snapshot sequence $sequence; web-url $(echo "$url" | sed 's/#token=.*/#token=…/'): without the token 401," \
        "with it SetScanning off and on reached peerscand"
}
