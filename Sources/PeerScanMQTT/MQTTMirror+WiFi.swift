import MQTTClient
import PeerScanModel

extension MQTTMirror {
    /// The retained topics of the Wi-Fi networks (`<prefix>/wifi/<id>`): each holds the network's item as in the
    /// snapshot while it is listed, and is deleted (an empty retained message) once it left the list — expired, or
    /// scanning switched off. Unlike a device's, a network's topic is not kept while the list lacks it: networks come
    /// and go with the air, and return with their id.
    ///
    /// Bounded like the devices' topics: a network is published from its current payload when its turn comes.
    struct WiFiTopics: Sendable {
        /// The payload each listed network's topic should hold.
        private(set) var wanted: [DeviceID: [UInt8]] = [:]
        /// What the broker holds, as far as the mirror knows: empty after a (re)connection until published or learned.
        private var retained: [DeviceID: [UInt8]] = [:]
        /// The networks whose topic may differ from what it should hold.
        private(set) var dirty = Set<DeviceID>()

        /// Takes the networks of a whole snapshot (at start, after a resync or a section change).
        ///
        /// - Complexity: O(n) for n items of the `networks` section.
        mutating func reset(to snapshot: ScanSnapshot) {
            let old = wanted
            wanted = [:]
            for case .wifiNetwork(let network) in snapshot.items(inSection: .networks) ?? [] {
                wanted[network.id] = MQTTPayloads.encode(ScanItem.wifiNetwork(network))
            }
            dirty.formUnion(old.keys)
            dirty.formUnion(wanted.keys)
        }

        /// Takes the Wi-Fi items of a changeset without section changes.
        ///
        /// - Complexity: O(c) for c changes.
        mutating func apply(_ changes: ScanChangeset) {
            for delete in changes.itemDeletes where wanted.removeValue(forKey: delete.id) != nil {
                dirty.insert(delete.id)
            }
            for payload in changes.itemInserts + changes.itemUpdates {
                guard case .wifiNetwork(let network) = payload.item else { continue }
                wanted[network.id] = MQTTPayloads.encode(payload.item)
                dirty.insert(network.id)
            }
        }

        /// The connection is up (again): every topic is published again.
        mutating func connected() {
            retained = [:]
            dirty.formUnion(wanted.keys)
        }

        /// A retained network topic the broker holds from before: deleted unless the network is listed.
        mutating func received(_ payload: [UInt8], for id: DeviceID) {
            retained[id] = payload
            dirty.insert(id)
        }

        /// The messages that bring the topics up to date, at most `room`, in the order of the networks' ids.
        mutating func takeMessages(room: Int, topics: MQTTTopics) -> [MQTTMessage] {
            guard room > 0, !dirty.isEmpty else { return [] }
            var messages: [MQTTMessage] = []
            for id in dirty.sorted() {
                guard messages.count < room else { break }
                dirty.remove(id)
                let payload = wanted[id]
                guard retained[id] != payload else { continue }
                messages.append(MQTTMessage(topic: topics.wifiNetwork(id), payload: payload ?? [], retain: true))
                retained[id] = payload
            }
            return messages
        }
    }
}
