import PipeCore
import PipeSpec

extension ForgeDecoder {
    /// `push:`, a list of `{pipelines: […], branches: […], tags: […]}`.
    func pushRules(_ node: YAMLNode, at path: SpecKeyPath) -> [PushRule] {
        rules(node, at: path, example: "- {branches: [main], pipelines: [app-intents]}").compactMap { mapping in
            mapping.rejectUnknownKeys(allowed: ForgesConfigLoader.pushKeys)
            let values = ForgeValueReader(document)
            let names = mapping.required("pipelines", hint: "the pipelines a push runs").map {
                values.pipelineNames($0, at: mapping.path.appending("pipelines"), known: pipelines)
            }
            var refs: [TrustedRefPattern] = []
            if let branches = mapping.value("branches") {
                refs += values.refPatterns(branches, at: mapping.path.appending("branches"), what: "branches").map {
                    TrustedRefPattern("refs/heads/" + $0)
                }
            }
            if let tags = mapping.value("tags") {
                refs += values.refPatterns(tags, at: mapping.path.appending("tags"), what: "tags").map {
                    TrustedRefPattern("refs/tags/" + $0)
                }
            }
            if !mapping.contains("branches"), !mapping.contains("tags") {
                document.error(
                    mapping.path, at: mapping.node.start,
                    "say which pushes run: `branches: [main, \"release/*\"]` and/or `tags: [\"v*\"]`")
            }
            guard let names, !names.isEmpty, !refs.isEmpty else { return nil }
            return PushRule(pipelines: names, refs: refs)
        }
    }

    /// `pull-requests:`, a list of `{pipelines: […], branches: […], actions: […]}`.
    func pullRequestRules(_ node: YAMLNode, at path: SpecKeyPath) -> [PullRequestRule] {
        rules(node, at: path, example: "- {pipelines: [app-intents], branches: [main]}").compactMap { mapping in
            mapping.rejectUnknownKeys(allowed: ForgesConfigLoader.pullRequestKeys)
            let values = ForgeValueReader(document)
            let names = mapping.required("pipelines", hint: "the pipelines a pull request runs").map {
                values.pipelineNames($0, at: mapping.path.appending("pipelines"), known: pipelines)
            }
            var branches: [BranchPattern] = []
            if let node = mapping.value("branches") {
                branches = values.refPatterns(node, at: mapping.path.appending("branches"), what: "branches").map(
                    BranchPattern.init)
            }
            var actions: Set<PullRequestAction>?
            if let node = mapping.value("actions") {
                actions = self.actions(node, at: mapping.path.appending("actions"))
            }
            guard let names, !names.isEmpty else { return nil }
            return PullRequestRule(pipelines: names, baseBranches: branches, actions: actions)
        }
    }

    /// Each word for an action that runs pipelines, by the action it means.
    static let actionWords: [String: PullRequestAction] = [
        "opened": .opened, "open": .opened, "synchronize": .synchronized, "synchronized": .synchronized,
        "update": .synchronized, "reopened": .reopened, "reopen": .reopened,
    ]

    /// The actions that run: GitHub's, Gitea's and GitLab's words for the same three.
    private func actions(_ node: YAMLNode, at path: SpecKeyPath) -> Set<PullRequestAction>? {
        guard let items = document.strings(node, at: path) else { return nil }
        let words = Self.actionWords
        var actions: Set<PullRequestAction> = []
        for item in items {
            if let action = words[item.text] {
                actions.insert(action)
            } else {
                document.error(
                    item.path, at: item.node.start,
                    "'\(item.text)' is not an action that runs pipelines; use opened, synchronize (Gitea: "
                        + "synchronized, GitLab: update) or reopened"
                        + SpecDocument.suggestion(item.text, among: words.keys.sorted()))
            }
        }
        if items.isEmpty {
            document.error(path, at: node.start, "no actions; name at least one, or leave actions: out")
        }
        return actions
    }

    /// The mappings of a list of rules (a single mapping is taken as a list of one).
    private func rules(_ node: YAMLNode, at path: SpecKeyPath, example: String) -> [SpecMapping] {
        if node.mapping != nil {
            return document.mapping(node, at: path).map { [$0] } ?? []
        }
        guard let items = node.sequence else {
            document.mismatch(node, at: path, expected: "a list of rules", hint: "write \(example)")
            return []
        }
        return items.enumerated().compactMap { index, item in
            document.mapping(item, at: path.appending(index), expected: "a rule (a mapping with 'pipelines:')")
        }
    }

    /// `forks:`, a policy name or `{policy: approved, label: …, approvers: […], chat-approvers: […], command: …}`.
    func forks(_ node: YAMLNode, at path: SpecKeyPath) -> ForkPolicy {
        if node.scalar != nil {
            guard let name = document.nonEmptyString(node, at: path) else { return .never }
            switch name {
            case "never": return .never
            case "without-secrets": return .withoutSecrets
            case "approved":
                document.error(
                    path, at: node.start,
                    "approved needs who may approve: `forks: {policy: approved, label: pipe-approved, approvers: "
                        + "[login]}` (or chat-approvers:, command: true)")
            default:
                document.error(
                    path, at: node.start,
                    "'\(name)' is not a fork policy; use never, without-secrets or approved"
                        + SpecDocument.suggestion(name, among: ForkPolicy.names))
            }
            return .never
        }
        guard
            let mapping = document.mapping(
                node, at: path, expected: "a fork policy (never, without-secrets or a mapping)")
        else { return .never }
        mapping.rejectUnknownKeys(allowed: ForgesConfigLoader.forkKeys)
        var policy = ForkPolicy.never
        if let policyNode = mapping.required("policy", hint: "never, without-secrets or approved"),
            let name = document.nonEmptyString(policyNode, at: path.appending("policy"))
        {
            switch name {
            case "never": policy = .never
            case "without-secrets": policy = .withoutSecrets
            case "approved": policy = .approved(approval(mapping))
            default:
                document.error(
                    path.appending("policy"), at: policyNode.start,
                    "'\(name)' is not a fork policy; use never, without-secrets or approved"
                        + SpecDocument.suggestion(name, among: ForkPolicy.names))
            }
        }
        if case .approved = policy { return policy }
        for key in ["label", "approvers", "chat-approvers", "command"] {
            if let value = mapping.value(key) {
                document.error(path.appending(key), at: value.start, "is used only with `policy: approved`")
            }
        }
        return policy
    }

    private func approval(_ mapping: SpecMapping) -> ForkApproval {
        let path = mapping.path
        var approval = ForkApproval()
        approval.label = mapping.value("label").flatMap { document.nonEmptyString($0, at: path.appending("label")) }
        approval.forgeUsers =
            mapping.value("approvers").flatMap { document.strings($0, at: path.appending("approvers")) }?.map(\.text)
            ?? []
        approval.chatUsers =
            mapping.value("chat-approvers").flatMap { document.strings($0, at: path.appending("chat-approvers")) }?.map(
                \.text) ?? []
        approval.command =
            mapping.value("command").flatMap { document.boolean($0, at: path.appending("command")) } ?? false
        if approval.label != nil, approval.forgeUsers.isEmpty {
            document.error(
                path.appending("label"), at: mapping.value("label")?.start ?? mapping.node.start,
                "a label approves only when someone named under approvers: adds it; add `approvers: [login]`")
        }
        if approval.label == nil, let node = mapping.value("approvers") {
            document.error(
                path.appending("approvers"), at: node.start,
                "approvers: are the forge users whose label approves; give the label too, e.g. `label: pipe-approved`")
        }
        if approval.label == nil, approval.chatUsers.isEmpty, !approval.command, !mapping.contains("approvers"),
            !mapping.contains("label")
        {
            document.error(
                path, at: mapping.node.start,
                "say how a fork's pull request is approved: label: with approvers:, chat-approvers:, or command: true")
        }
        return approval
    }
}
