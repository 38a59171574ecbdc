// The same counter under a pthread mutex, which ThreadSanitizer intercepts.
import Foundation

final class Box: @unchecked Sendable {
    var counter = 0
    let lock = NSLock()
}
let box = Box()
let group = DispatchGroup()
for _ in 0..<2 {
    group.enter()
    Thread {
        for _ in 0..<100_000 {
            box.lock.lock()
            box.counter += 1
            box.lock.unlock()
        }
        group.leave()
    }.start()
}
group.wait()
print("counter", box.counter)
