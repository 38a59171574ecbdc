import Foundation

/// The parameter names of every method of a Varlink interface, read from its definition: what a call may carry.
///
/// A call with a parameter its method does not declare is refused with `org.varlink.service.InvalidParameter` naming
/// it, as systemd's sd-varlink does: a misspelled parameter must not be silently ignored. Only names are checked
/// here; types are checked when the handler decodes the parameters.
struct VarlinkMethodParameters: Sendable {
    /// Method name → the names of its input parameters.
    private let methods: [String: Set<String>]

    /// Reads the methods of a definition (the Varlink IDL: `method Name(a: type, b: ?type) -> (…)`).
    ///
    /// - Complexity: O(n) in the length of `definition`.
    init(definition: String) {
        // Comments run from `#` to the end of the line; nothing else in the IDL contains `#`.
        let text = definition.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.firstIndex(of: "#").map { line[..<$0] } ?? line[...] }
            .joined(separator: "\n")
        var methods: [String: Set<String>] = [:]
        var rest = Substring(text)
        while let keyword = rest.firstRange(of: "method") {
            let isWord =
                keyword.lowerBound == rest.startIndex || rest[rest.index(before: keyword.lowerBound)].isWhitespace
            rest = rest[keyword.upperBound...]
            guard isWord, rest.first?.isWhitespace == true else { continue }
            let afterSpace = rest.drop { $0.isWhitespace }
            let name = afterSpace.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            let open = afterSpace[name.endIndex...].drop { $0.isWhitespace }
            guard !name.isEmpty, open.first == "(" else { continue }
            let (fields, end) = Self.fieldNames(in: open.dropFirst())
            methods[String(name)] = fields
            rest = open[end...]
        }
        self.methods = methods
    }

    /// The names of the parameters `method` declares; `nil` for a method the definition does not declare.
    func parameterNames(of method: String) -> Set<String>? { methods[method] }

    /// The field names of a struct body up to its closing parenthesis (nested parentheses — enums, inner structs —
    /// skipped), and the index after it.
    private static func fieldNames(in text: Substring) -> (Set<String>, Substring.Index) {
        var names: Set<String> = []
        var depth = 0
        var fieldStart = text.startIndex
        var index = text.startIndex
        func addField(upTo end: Substring.Index) {
            let field = text[fieldStart..<end]
            if let colon = field.firstIndex(of: ":") {
                let name = field[..<colon].trimmingCharacters(in: .whitespacesAndNewlines)
                if !name.isEmpty { names.insert(name) }
            }
        }
        while index < text.endIndex {
            switch text[index] {
            case "(":
                depth += 1
            case ")" where depth == 0:
                addField(upTo: index)
                return (names, text.index(after: index))
            case ")":
                depth -= 1
            case "," where depth == 0:
                addField(upTo: index)
                fieldStart = text.index(after: index)
            default:
                break
            }
            index = text.index(after: index)
        }
        addField(upTo: text.endIndex)
        return (names, text.endIndex)
    }
}
