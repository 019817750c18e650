/// GitLab's hook payloads, as far as Pipe reads them.
enum GitLabPayloads {
    struct Project: Decodable {
        let id: Int64?
        let pathWithNamespace: String
    }

    struct User: Decodable {
        let username: String?
    }

    struct Label: Decodable {
        let title: String
    }

    struct Push: Decodable {
        let objectKind: String
        let ref: String
        let before: String
        let after: String
        let project: Project
        let userUsername: String?
    }

    struct Commit: Decodable {
        let id: String
    }

    struct Attributes: Decodable {
        let iid: Int
        let title: String
        let action: String?
        let state: String
        let oldrev: String?
        let sourceBranch: String
        let targetBranch: String
        let sourceProjectId: Int64
        let targetProjectId: Int64
        let lastCommit: Commit
        let source: Project?
        let target: Project?
    }

    struct LabelChange: Decodable {
        let previous: [Label]?
        let current: [Label]?
    }

    struct Changes: Decodable {
        let labels: LabelChange?
    }

    struct MergeRequest: Decodable {
        let objectKind: String
        let user: User?
        let project: Project
        let objectAttributes: Attributes
        let labels: [Label]?
        let changes: Changes?
    }
}
