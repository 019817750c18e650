/// `/sign-in`: the page's own sign-in form (with its CSRF token, like every form).
enum SignInPage {
    static func body(viewer: WebViewer, problem: String? = nil, user: String = "", next: String = "") -> String {
        var html = "<h1>Sign in</h1>"
        if let problem { html += "<p class=\"refusal\" role=\"alert\">\(HTMLText.escape(problem))</p>" }
        html += "<form method=\"post\" action=\"\(viewer.link("sign-in"))\">\(viewer.csrfField)"
        html += "<input type=\"hidden\" name=\"next\" value=\"\(HTMLText.escape(next))\">"
        html +=
            "<label for=\"user\">User</label><input type=\"text\" id=\"user\" name=\"user\" autocomplete=\"username\""
        html += " value=\"\(HTMLText.escape(user))\" required>"
        html += "<label for=\"password\">Password</label><input type=\"password\" id=\"password\" name=\"password\""
        html += " autocomplete=\"current-password\" required><p><button type=\"submit\">Sign in</button></p></form>"
        return html
    }
}
