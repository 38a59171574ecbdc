// Setting a connection's client up: libmosquitto's options, and its callbacks, which report on the network thread
// through the connection's `CallbackContext`.

internal import CMosquitto
import Synchronization

extension MQTTConnection {
    // MARK: - Setup

    func configure() throws(MQTTError) {
        let client = handle.client
        // Called from the network thread and from publishers' threads: libmosquitto locks its state.
        try check(mosquitto_threaded_set(client, true), "mosquitto_threaded_set")
        try check(
            mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5),
            "protocol version"
        )
        // Small messages go out at once: with Nagle's algorithm each window of unacknowledged messages waited for
        // the peer's delayed ACK (tens of ms per round on loopback).
        try check(mosquitto_int_option(client, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        if let credentials = configuration.credentials {
            try check(
                mosquitto_username_pw_set(client, credentials.username, credentials.password),
                "credentials"
            )
        }
        if let tls = configuration.tls {
            if tls.caFile == nil {
                try check(mosquitto_int_option(client, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "TLS system certificates")
            }
            try check(
                mosquitto_tls_set(client, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil),
                "TLS files"
            )
        }
        if let will = configuration.will {
            let code = will.payload.withUnsafeBytes { payload in
                mosquitto_will_set_v5(
                    client,
                    will.topic,
                    Int32(payload.count),
                    payload.baseAddress,
                    Int32(will.qos),
                    will.retain,
                    nil
                )
            }
            try check(code, "will")
        }
        mosquitto_connect_v5_callback_set(client) { client, context, code, _, _ in
            guard let client, let context else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            if code == 0 {
                let version = callbacks.protocolVersion.load(ordering: .relaxed)
                callbacks.continuation.yield(.connected(protocolVersion: Int(version)))
            } else if code == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue)
                || code == Int32(CONNACK_REFUSED_PROTOCOL_VERSION.rawValue)
            {
                // An MQTT 3.1.1 broker: speak 3.1.1 from the next attempt on (the loop reconnects).
                mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
                callbacks.protocolVersion.store(Int32(MQTT_PROTOCOL_V311), ordering: .relaxed)
                callbacks.continuation.yield(.disconnected(reason: "broker refused MQTT 5; trying MQTT 3.1.1"))
            } else {
                callbacks.continuation.yield(.disconnected(reason: String(cString: mosquitto_reason_string(code))))
            }
        }
        mosquitto_disconnect_v5_callback_set(client) { _, context, code, _ in
            guard let context else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            guard code != 0 else { return }  // our own stop()
            callbacks.continuation.yield(.disconnected(reason: MQTTConnection.message(code)))
        }
        mosquitto_publish_v5_callback_set(client) { _, context, messageID, _, _ in
            guard let context else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            callbacks.continuation.yield(.published(messageID: messageID))
        }
        mosquitto_message_v5_callback_set(client) { _, context, message, _ in
            guard let context, let message else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            let payload =
                message.pointee.payloadlen > 0
                ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: Int(message.pointee.payloadlen)))
                : []
            callbacks.continuation.yield(
                .received(
                    MQTTMessage(
                        topic: String(cString: message.pointee.topic),
                        payload: payload,
                        qos: Int(message.pointee.qos),
                        retain: message.pointee.retain
                    )
                )
            )
        }
    }
}

/// What libmosquitto's callbacks (on its network thread) reach through their `obj` pointer.
final class CallbackContext: Sendable {
    let continuation: AsyncStream<MQTTEvent>.Continuation
    let protocolVersion = Atomic<Int32>(Int32(MQTT_PROTOCOL_V5))

    init(continuation: AsyncStream<MQTTEvent>.Continuation) { self.continuation = continuation }
}
