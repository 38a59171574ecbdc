import HTTPTypes

/// The headers every response carries, and those of the API's.
public enum SecurityHeaders {
    /// The Content-Security-Policy: the page's own scripts, styles and connections only, no inline code, no framing.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Adds the headers of every response: the CSP, `nosniff`, no referrer.
    public static func addCommon(to fields: inout HTTPFields) {
        fields[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    }

    /// Adds the headers of an API response: the common ones and `Cache-Control: no-store`.
    public static func addAPI(to fields: inout HTTPFields) {
        addCommon(to: &fields)
        fields[.cacheControl] = "no-store"
    }
}
