/// The keys of the project file (`project.yml`) and their types: `ProjectFileLoader` checks keys against these,
/// and `pipe schema project` writes them as a JSON Schema.
public enum ProjectFileShape {
    static let top = MappingShape(
        "The project file (project.yml, docs/security.md)",
        [
            KeyShape(
                "trusted-refs", .texts,
                "the refs whose commits are release code: branches (main, release/*) or full refs (refs/tags/v*)")
        ])

    public static let file = FileShape(kind: "project", title: "Pipe project file", root: top)
}
