// libmosquitto, the Eclipse Mosquitto project's MQTT client library (Debian's libmosquitto-dev), and its MQTT 5
// reason codes and property identifiers.
#include <mosquitto.h>
#include <mqtt_protocol.h>
