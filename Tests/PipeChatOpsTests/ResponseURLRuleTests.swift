import PipeChatOps
import PipeTestSupport
import XCTest

/// `response-urls` compared parsed: scheme, host, port and path prefix; user info and other double readings refused.
final class ResponseURLRuleTests: XCTestCase {
    func testAPrefixEndingInAColonNoLongerLetsUserInfoThrough() throws {
        let rule = try ResponseURLRule("https://chat.example.com:")
        XCTAssertFalse(rule.allows("https://chat.example.com:@10.0.0.1/x"), "user info naming another host")
        XCTAssertTrue(rule.allows("https://chat.example.com:8443/hooks/1"), "any port of the host")
        XCTAssertTrue(rule.allows("https://chat.example.com/hooks/1"))
        XCTAssertFalse(rule.allows("https://chat.example.com.evil.example/x"))
        XCTAssertEqual(
            ResponseURLRule.refusal(of: "https://chat.example.com:@10.0.0.1/x", by: [rule]),
            "the URL holds user info (an @ before the host); it is never posted to")
    }

    func testOnlyTheRulesSchemeHostPortAndPathPass() throws {
        let rule = try ResponseURLRule("https://hooks.slack.com/commands/")
        for allowed in [
            "https://hooks.slack.com/commands/T1/397700885554/96rGlf", "HTTPS://Hooks.Slack.COM/commands/T1",
            "https://hooks.slack.com:443/commands/T1", "https://hooks.slack.com./commands/T1?x=1",
        ] {
            XCTAssertTrue(rule.allows(allowed), allowed)
        }
        for refused in [
            "http://hooks.slack.com/commands/T1", "https://hooks.slack.com:444/commands/T1",
            "https://hooks.slack.com/command/T1", "https://hooks.slack.com/commandsX", "https://hooks.slack.com/",
            "https://hooks.slack.com.evil.example/commands/", "https://hooks.slack.com@evil.example/commands/",
            "https://user:pw@hooks.slack.com/commands/", "https://evil.example/commands/?https://hooks.slack.com/",
            "https://evil.example/#https://hooks.slack.com/commands/",
            "https://hooks.slack.com\\@evil.example/commands/",
            "https://hooks.slack.com/commands/../../evil", "https://hooks.slack.com/commands/%2E%2e/evil",
            " https://hooks.slack.com/commands/", "https://hooks.slack.com/commands/\n", "https://hooks.slack.com%2f/",
            "https://hooks.slack.com:0/commands/", "https://hooks.slack.com:99999/commands/", "ftp://hooks.slack.com/",
            "https:/hooks.slack.com/commands/", "//hooks.slack.com/commands/", "https://[::1/commands/",
            "https://hooks.sláck.com/commands/",
        ] {
            XCTAssertFalse(rule.allows(refused), refused)
        }
        let path = try ResponseURLRule("https://chat.example.com/hooks")
        XCTAssertTrue(path.allows("https://chat.example.com/hooks"))
        XCTAssertTrue(path.allows("https://chat.example.com/hooks/1"))
        XCTAssertFalse(path.allows("https://chat.example.com/hooksevil"), "a path prefix ends at a /")
        XCTAssertTrue(try ResponseURLRule("http://[::1]:8065/").allows("http://[::1]:8065/hooks/x"))
    }

    func testNoInjectionStringIsAResponseURLOrARule() {
        let rules = [try? ResponseURLRule("https://hooks.slack.com/")].compactMap { $0 }
        for text in InjectionCorpus.strings + [InjectionCorpus.withNUL] {
            XCTAssertNotNil(ResponseURLRule.refusal(of: text, by: rules), text)
            XCTAssertThrowsError(try ResponseURLRule(text), text)
            XCTAssertFalse(rules[0].allows("https://hooks.slack.com@" + text), text)
        }
    }
}
