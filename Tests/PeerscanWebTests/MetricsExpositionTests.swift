import PeerscanWeb
import Testing

@Suite struct MetricsExpositionTests {
    @Test func labelValuesAreEscapedAsTheFormatSays() {
        for format in [MetricsExposition.Format.prometheus, .openMetrics] {
            var exposition = MetricsExposition(format: format)
            exposition.sample("x", ["name": "a \"quoted\" \\ back\nslash"], "1")
            #expect(sampleLines(exposition) == [#"x{name="a \"quoted\" \\ back\nslash"} 1"#])
        }
    }

    @Test func helpTextsEscapeBackslashAndLineFeed() {
        var exposition = MetricsExposition(format: .prometheus)
        exposition.family("x", .gauge, help: "a\\b\nc")
        #expect(String(decoding: exposition.bytes, as: UTF8.self) == "# HELP x a\\\\b\\nc\n# TYPE x gauge\n")
    }

    @Test func countersAreDeclaredWithTotalInPrometheusTextOnly() {
        var text = MetricsExposition(format: .prometheus)
        text.family("events", .counter, help: "h")
        text.finish()
        #expect(String(decoding: text.bytes, as: UTF8.self) == "# HELP events_total h\n# TYPE events_total counter\n")
        var open = MetricsExposition(format: .openMetrics)
        open.family("events", .counter, help: "h")
        open.finish()
        #expect(String(decoding: open.bytes, as: UTF8.self) == "# HELP events h\n# TYPE events counter\n# EOF\n")
    }

    @Test(
        arguments: [
            (nil, MetricsExposition.Format.prometheus),
            ("text/plain", .prometheus),
            ("application/openmetrics-text", .openMetrics),
            // What Prometheus 2.x sends.
            (
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                    + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", .openMetrics
            ),
            ("application/openmetrics-text;version=0.0.1", .prometheus),
            ("text/plain;version=0.0.4, application/openmetrics-text; q=0.5", .prometheus),
            ("application/openmetrics-text; q=0", .prometheus),
        ] as [(String?, MetricsExposition.Format)]
    )
    func theAcceptHeaderChoosesTheFormat(accept: String?, format: MetricsExposition.Format) {
        #expect(MetricsExposition.Format(accept: accept) == format)
    }

    @Test func contentTypesNameTheVersions() {
        #expect(MetricsExposition.Format.prometheus.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(
            MetricsExposition.Format.openMetrics.contentType
                == "application/openmetrics-text; version=1.0.0; charset=utf-8"
        )
    }

    @Test func numbersAndBoundsAreWrittenCanonically() {
        #expect(MetricsExposition.value(Double.infinity) == "+Inf")
        #expect(MetricsExposition.value(-Double.infinity) == "-Inf")
        #expect(MetricsExposition.value(Double.nan) == "NaN")
        #expect(MetricsExposition.value(1.5) == "1.5")
        #expect(MetricsExposition.bound(1) == "1.0")
        #expect(MetricsExposition.bound(0.25) == "0.25")
        #expect(MetricsExposition.bound(60) == "60.0")
    }
}
