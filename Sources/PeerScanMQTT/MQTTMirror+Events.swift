import DequeModule
import MQTTClient

extension MQTTMirror {
    /// The `events` stream (`<prefix>/events`, not retained): a snapshot message, then one message per changeset.
    ///
    /// Bounded: at most `maximumQueued` messages wait; one more drops them all (counted in ``dropped``) and the stream
    /// starts over with a snapshot message, as a slow Varlink client is resynchronized. The snapshot message is built
    /// only when its turn comes, from the snapshot of that moment, and holds every change queued before it.
    struct EventsStream: Sendable {
        /// The topic the messages go to.
        let topic: String
        /// The most messages waiting to be published.
        let maximumQueued: Int
        /// How many messages were dropped (the queue was full, or the broker absent) since the start.
        private(set) var dropped = 0
        private var queued = Deque<MQTTMessage>()
        /// Whether the stream needs a snapshot message before its next changeset.
        private var needsSnapshot = true

        init(topic: String, maximumQueued: Int) {
            self.topic = topic
            self.maximumQueued = maximumQueued
        }

        /// Whether no message waits.
        var isEmpty: Bool { queued.isEmpty }

        /// Starts over with a snapshot message, discarding what waits (a fresh connection: nothing was lost).
        mutating func restart() {
            queued = []
            needsSnapshot = true
        }

        /// Drops what waits, counting it, and starts over with a snapshot message (the connection is down, or the
        /// mirror fell behind the store).
        mutating func dropAll() {
            if !queued.isEmpty { dropped += queued.count }
            restart()
        }

        /// The next message to publish is a snapshot message (the mirror's snapshot was replaced by the store's).
        mutating func requireSnapshot() {
            needsSnapshot = true
        }

        /// Queues a changeset message; one while disconnected is dropped, one a snapshot message to come holds is
        /// not needed.
        mutating func queue(_ payload: [UInt8], isConnected: Bool) {
            guard isConnected else {
                dropped += 1
                return
            }
            guard !needsSnapshot else { return }  // the snapshot message to come holds this change
            if queued.count >= maximumQueued {
                dropped += queued.count + 1
                queued = []
                needsSnapshot = true
                return
            }
            queued.append(MQTTMessage(topic: topic, payload: payload))
        }

        /// The messages to publish now, in order, at most `room`; the snapshot message first if one is needed (its
        /// payload made by `snapshot`, only then).
        ///
        /// - Complexity: O(k) for k messages returned, plus `snapshot`'s.
        mutating func takeMessages(room: Int, snapshot: () -> [UInt8]) -> [MQTTMessage] {
            guard room > 0 else { return [] }
            if needsSnapshot {
                needsSnapshot = false
                queued = [MQTTMessage(topic: topic, payload: snapshot())]
            }
            var messages: [MQTTMessage] = []
            while messages.count < room, let message = queued.popFirst() { messages.append(message) }
            return messages
        }
    }
}
