// Two threads increment one counter under Synchronization's Mutex: correct code. Does ThreadSanitizer report it?
import Foundation
import Synchronization

final class Box: Sendable { let counter = Mutex(0) }
let box = Box()
let group = DispatchGroup()
for _ in 0..<2 {
    group.enter()
    Thread {
        for _ in 0..<100_000 { box.counter.withLock { $0 += 1 } }
        group.leave()
    }.start()
}
group.wait()
print("counter", box.counter.withLock { $0 })
