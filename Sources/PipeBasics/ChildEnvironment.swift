/// The environment Pipe passes to a local child process (a tool such as `tar`): its own, without the variables
/// that reach the run store's database. libpq reads `PGPASSWORD`, `PGPASSFILE`, `PGHOST`, … from the environment,
/// and no tool Pipe starts has any business with the store's credentials.
public enum ChildEnvironment {
    /// `environment` without libpq's `PG*` variables.
    public static func withoutStoreCredentials(_ environment: [String: String]) -> [String: String] {
        environment.filter { !isStoreVariable($0.key) }
    }

    /// Whether `name` is one of libpq's variables (`PGPASSWORD`, `PGSSLKEY`, …).
    public static func isStoreVariable(_ name: String) -> Bool { name.hasPrefix("PG") }
}
