// libFuzzer target: the command lines a client sends a list session (`screens-pipe session`,
// `ListSession` in a service): every line becomes a command within its limits or an
// `unreadable` answer of bounded size, the same one each time it is read.
//
// Input: JSON lines, split at newlines as the session's reader splits them.
@testable import ScreensPipe
import Foundation
import ScreensBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSession(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let request = SessionRequest(line: line)
        guard SessionRequest(line: line) == request else { fatalError("a line read twice gave two commands: \(Array(line))") }
        if let id = request.id {
            guard id.isNumber || id.stringValue != nil, id.jsonString.utf8.count <= SessionRequest.maximumIDLength else {
                fatalError("an id out of its limits was kept: \(Array(line))")
            }
        }
        switch request.operation {
        case .unreadable(let reason):
            // Quoted back on an error line: client text in it is clipped.
            guard reason.utf8.count <= 1024 else { fatalError("an unreadable line's reason is \(reason.utf8.count) bytes: \(Array(line))") }
        case .page(let page), .select(row: let page):
            guard (0...Int(Int32.max)).contains(page) else { fatalError("index \(page) was accepted: \(Array(line))") }
        case .follow(every: let interval):
            guard interval >= .milliseconds(100), interval <= .seconds(24 * 3600) else { fatalError("interval \(interval) was accepted: \(Array(line))") }
        case .edit(.add(row: let row)), .edit(.update(row: let row)):
            guard let members = row.objectValue, !members.isEmpty else { fatalError("an edit row that is no object was accepted: \(Array(line))") }
        case .edit(.delete(key: let key)):
            guard let members = key.objectValue, (1...SessionRequest.maximumKeyFields).contains(members.count),
                members.values.allSatisfy({ $0.objectValue == nil && $0.arrayValue == nil })
            else { fatalError("a delete key out of its limits was accepted: \(Array(line))") }
        case .load, .next, .refresh, .unfollow, .close:
            break
        }
        if line.count > SessionRequest.maximumLineLength {
            guard case .unreadable = request.operation else { fatalError("a line over the limit was read as a command") }
        }
    }
    return 0
}
