import Foundation

extension Destination {
    /// The hosted ntfy server, for `ntfy://TOPIC` (Apprise's "cloud" form).
    static let ntfyCloudHost = "ntfy.sh"

    /// Parses a destination's URL in Apprise's syntax.
    ///
    /// - Parameters:
    ///   - text: The URL (surrounding white space ignored).
    ///   - readTemplate: Reads a webhook's `template=FILE` (the file system's by default).
    /// - Throws: ``DestinationError`` naming the part at fault and why, never the URL or a secret.
    public init(
        parsing text: String,
        readTemplate: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) }
    ) throws(DestinationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let schemeText = trimmed.range(of: "://").map { String(trimmed[..<$0.lowerBound]).lowercased() }
        guard let schemeText, !schemeText.isEmpty else {
            throw DestinationError(.notAURL, scheme: nil, part: .scheme, reason: "no SCHEME:// at the start")
        }
        let (kind, secureScheme) = try Self.kind(ofScheme: schemeText)
        var isSecure = secureScheme
        // URLComponents takes the scheme as given: lowercase it so `NTFY://` parses like `ntfy://`.
        guard let components = URLComponents(string: schemeText + trimmed.dropFirst(schemeText.count)) else {
            throw DestinationError(
                .notAURL,
                scheme: schemeText,
                part: .url,
                reason: "not a URL (a character to escape?)"
            )
        }
        guard components.fragment == nil else {
            throw DestinationError(.unexpected, scheme: schemeText, part: .url, reason: "a fragment (#…) is not taken")
        }
        let parser = Parser(scheme: schemeText, components: components)
        let port = try parser.port()
        var segments = parser.pathSegments()
        var host = try parser.host()
        let query = try parser.query(allowed: Self.options(of: kind))
        var credentials = try parser.credentials(kind: kind)
        var pathSecret: Secret?
        var headers: [HeaderField] = []
        var template: BodyTemplate?

        switch kind {
        case .ntfy:
            if segments.isEmpty, port == nil, components.user == nil {
                segments = [host]  // ntfy://TOPIC: the topic on ntfy.sh, over HTTPS (as Apprise sends it)
                host = Self.ntfyCloudHost
                isSecure = true
            }
            guard segments.count == 1 else {
                let reason =
                    segments.isEmpty
                    ? "a topic is required (ntfy://HOST/TOPIC)"
                    : "one topic per URL (give one --notify for each topic)"
                throw DestinationError(
                    segments.isEmpty ? .missing : .invalid,
                    scheme: schemeText,
                    part: .path,
                    reason: reason
                )
            }
            if let token = query["token"] { credentials = .bearer(Secret(token)) }
        case .webhook:
            for (name, value) in query where name.hasPrefix("+") {
                let field = String(name.dropFirst())
                guard Self.isHeaderName(field) else {
                    throw DestinationError(
                        .invalid,
                        scheme: schemeText,
                        part: .query,
                        reason: "a header option +NAME needs a header name"
                    )
                }
                headers.append(HeaderField(name: field, value: Secret(value)))
            }
            headers.sort { $0.name < $1.name }
            if let path = query["template"] {
                let text: String
                do { text = try readTemplate(path) } catch {
                    throw DestinationError(
                        .template,
                        scheme: schemeText,
                        part: .query,
                        reason: "template \(path): cannot be read (\(error))"
                    )
                }
                do { template = try BodyTemplate(text) } catch {
                    throw DestinationError(
                        .template,
                        scheme: schemeText,
                        part: .query,
                        reason: "template \(path): \(error)"
                    )
                }
            }
        case .gotify, .apprise:
            guard let last = segments.popLast(), !last.isEmpty else {
                let what =
                    kind == .gotify
                    ? "the app token (gotify://HOST/TOKEN)" : "the configuration key (apprise://HOST/KEY)"
                throw DestinationError(.missing, scheme: schemeText, part: .path, reason: "\(what) is required")
            }
            pathSecret = Secret(last)
            if kind == .gotify, credentials != nil {
                throw DestinationError(
                    .unexpected,
                    scheme: schemeText,
                    part: .userinfo,
                    reason: "Gotify takes its app token in the path, not a user or password"
                )
            }
        }
        var priority = query["priority"]
        if let given = priority {
            guard let normal = AlertPriority(parsing: given) else {
                throw DestinationError(
                    .invalid,
                    scheme: schemeText,
                    part: .query,
                    reason: "priority must be min, low, default, high, urgent (or 1-5)"
                )
            }
            priority = normal.rawValue
        }
        let tags = query["tags"].map { $0.split(separator: ",").map { String($0) } } ?? []
        var digest: Duration?
        if let given = query["digest"] {
            guard let window = DigestInterval.duration(parsing: given) else {
                throw DestinationError(
                    .invalid,
                    scheme: schemeText,
                    part: .query,
                    reason: "digest must be a window such as 90s, 15m or 1h (at most 24h), or off"
                )
            }
            digest = window
        }
        self.init(
            kind: kind,
            isSecure: isSecure,
            host: host,
            port: port,
            pathSegments: segments,
            credentials: credentials,
            pathSecret: pathSecret,
            headers: headers,
            priorityOverride: priority,
            tags: tags,
            template: template,
            digest: digest
        )
    }

    private static func kind(ofScheme scheme: String) throws(DestinationError) -> (Kind, Bool) {
        switch scheme {
        case "ntfy": (.ntfy, false)
        case "ntfys": (.ntfy, true)
        case "json": (.webhook, false)
        case "jsons": (.webhook, true)
        case "gotify": (.gotify, false)
        case "gotifys": (.gotify, true)
        case "apprise": (.apprise, false)
        case "apprises": (.apprise, true)
        default:
            throw DestinationError(
                .unsupportedScheme,
                scheme: scheme,
                part: .scheme,
                reason: "not one of ntfy, ntfys, json, jsons, gotify, gotifys, apprise, apprises"
            )
        }
    }

    /// The query options each kind takes (a webhook's `+Header` options besides).
    private static func options(of kind: Kind) -> Set<String> {
        switch kind {
        case .ntfy: ["token", "priority", "tags", "digest"]
        case .webhook: ["template", "digest"]
        case .gotify: ["priority", "digest"]
        case .apprise: ["tags", "digest"]
        }
    }

    /// An HTTP token (RFC 9110): the characters a header's name may have.
    static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
            }
    }
}

/// The parts of one URL, each checked with an error that names the part.
private struct Parser {
    let scheme: String
    let components: URLComponents

    func host() throws(DestinationError) -> String {
        guard var host = components.host, !host.isEmpty else {
            throw DestinationError(.missing, scheme: scheme, part: .host, reason: "a host is required")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    func port() throws(DestinationError) -> Int? {
        guard let port = components.port else { return nil }
        guard (1...65535).contains(port) else {
            throw DestinationError(.invalid, scheme: scheme, part: .port, reason: "not in 1-65535")
        }
        return port
    }

    func pathSegments() -> [String] {
        components.path.split(separator: "/", omittingEmptySubsequences: true).map {
            String($0).removingPercentEncoding ?? String($0)
        }
    }

    func query(allowed: Set<String>) throws(DestinationError) -> [String: String] {
        var options: [String: String] = [:]
        for item in components.queryItems ?? [] {
            let name = item.name
            // The option's name is never echoed: a misplaced token may stand where a name should.
            guard allowed.contains(name.lowercased()) || (allowed.contains("template") && name.hasPrefix("+")) else {
                let known = allowed.sorted().joined(separator: ", ")
                throw DestinationError(
                    .unknownOption,
                    scheme: scheme,
                    part: .query,
                    reason: "an option it does not know (not named here: it may be a secret; it takes: \(known))"
                )
            }
            options[name.hasPrefix("+") ? name : name.lowercased()] = item.value ?? ""
        }
        return options
    }

    /// `USER:PASSWORD@` as basic authentication, `TOKEN@` or `:TOKEN@` (an ntfy access token) as a bearer token.
    func credentials(kind: Destination.Kind) throws(DestinationError) -> Credentials? {
        let user = components.user?.removingPercentEncoding ?? components.user
        let password = components.password?.removingPercentEncoding ?? components.password
        switch (user, password) {
        case (nil, nil): return nil
        case (let user?, let password?) where !user.isEmpty: return .basic(user: user, password: Secret(password))
        case (_, let token?) where !token.isEmpty: return .bearer(Secret(token))
        case (let user?, nil) where !user.isEmpty:
            if kind == .ntfy, user.hasPrefix("tk_") { return .bearer(Secret(user)) }
            return .basic(user: user, password: Secret(""))
        default:
            throw DestinationError(.invalid, scheme: scheme, part: .userinfo, reason: "an empty user and password")
        }
    }
}
