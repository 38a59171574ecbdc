import Testing

@testable import AlertDelivery

@Suite struct NotifyListTests {
    @Test func oneURLALineWithCommentsAndBlankLinesSkipped() {
        let text = "# alerts\r\n\n  ntfys://tk_a@ntfy.example/alerts  \r\n   # json://old/\njson://h/x\n"
        #expect(
            NotifyList.lines(of: text) == [
                .init(number: 3, url: "ntfys://tk_a@ntfy.example/alerts"), .init(number: 5, url: "json://h/x"),
            ]
        )
        #expect(NotifyList.lines(of: "").isEmpty)
    }
}
