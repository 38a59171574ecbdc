import AsyncPrimitives
import DeviceRegistry
import Discovery
import Foundation
import PeerScanCore
import PeerScanModel
import ServiceLifecycle

/// Decides the alerts (``AlertPolicy``) from the store's updates and notices, and writes them to the outbox; drops
/// the expired ones every minute.
///
/// The store's notices reach ``inputs`` through its recorder before the batch's changeset is published, so the policy
/// sees a new device's notice before its insert. A subscriber that falls behind (more than ``storeQueueLimit``
/// updates queued) starts over from the current snapshot: what changed meanwhile is not alerted.
struct AlertService: Service {
    /// What the service acts on.
    enum Input: Sendable {
        case updates(DrainingQueue<StoreUpdate>.Batch)
        case notices([StoreNotice])
        case rules(AlertRules)
        case wake
        case expire
    }

    static let storeQueueLimit = 4096

    let store: SnapshotStore
    let outbox: AlertOutbox
    /// Where the store's notices and the rules' changes arrive (made before the store).
    let inputs: DrainingQueue<Input>
    let settings: AlertPolicy.Settings
    let clock: ScanClock

    func run() async throws {
        let subscription = await store.subscribe(limit: Self.storeQueueLimit)
        defer { subscription.cancel() }
        let policy = AlertPolicy(settings: settings, rules: await outbox.rules, snapshot: subscription.snapshot)
        await withDiscardingTaskGroup { group in
            group.addTask {
                while let batch = await subscription.updates.nextBatch() { inputs.push(.updates(batch)) }
                inputs.finish()  // the store ended its subscriptions: shutting down
            }
            group.addTask {
                while (try? await clock.sleep(for: .seconds(60))) != nil { inputs.push(.expire) }
            }
            await cancelWhenGracefulShutdown { await drive(policy) }
            subscription.cancel()  // ends the forwarding task's wait, whether or not the store ended it yet
            inputs.finish()
            group.cancelAll()
        }
        try? await gracefulShutdown()
    }

    /// Feeds the policy until the inputs end, writing what it decides; wakes it when it asks.
    private func drive(_ initial: AlertPolicy) async {
        var policy = initial
        // The one timer: cancelled and made again whenever the policy's next wake changes.
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        while let batch = await inputs.nextBatch() {
            let moment = AlertPolicy.Moment(now: clock.now(), date: Date())
            for input in batch.elements {
                switch input {
                case .updates(let updates):
                    if updates.dropped > 0 {
                        let (snapshot, _) = await store.current()
                        policy = AlertPolicy(settings: settings, rules: policy.rules, snapshot: snapshot)
                    }
                    for update in updates.elements { policy.apply(update.changes, at: moment) }
                case .notices(let notices):
                    policy.note(notices, at: moment)
                case .rules(let rules):
                    policy.rules = rules
                case .wake:
                    break
                case .expire:
                    await outbox.expire()
                }
            }
            for decided in policy.takeAlerts(at: AlertPolicy.Moment(now: clock.now(), date: Date())) {
                await outbox.add(decided)  // held by the outbox until its not-before time, if any
            }
            timer?.cancel()
            timer = nil
            if let wake = policy.nextWake(at: AlertPolicy.Moment(now: clock.now(), date: Date())) {
                timer = Task { [inputs, clock] in
                    if (try? await clock.sleep(for: wake)) != nil { inputs.push(.wake) }
                }
            }
        }
    }
}
