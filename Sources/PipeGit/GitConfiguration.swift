import CGit2
import Foundation

/// Reads the git configuration that applies to a folder, the way `git config --get` does there: the repository's
/// own config, then the user's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`). The system file is not read
/// (PipeGit never reads it, so a checkout does not depend on machine-wide settings).
public enum GitConfiguration {
    /// The value of `key` (e.g. `user.email`) for `folder`, or `nil` when it is not set, or when `folder` is in no
    /// repository and the user's config does not set it either.
    public static func string(_ key: String, at folder: URL) -> String? {
        GitLibrary.ensureInitialised()
        var repository: OpaquePointer?
        var config: OpaquePointer?
        defer {
            if let config { git_config_free(config) }
            if let repository { git_repository_free(repository) }
        }
        if git_repository_open_ext(&repository, folder.path, 0, nil) == 0, let repository {
            guard git_repository_config(&config, repository) == 0 else { return nil }
        } else {
            // Not a repository (or one we may not open): the user's own settings still apply.
            guard git_config_open_default(&config) == 0 else { return nil }
        }
        guard let config else { return nil }
        var snapshot: OpaquePointer?
        guard git_config_snapshot(&snapshot, config) == 0, let snapshot else { return nil }
        defer { git_config_free(snapshot) }
        var value: UnsafePointer<CChar>?
        guard git_config_get_string(&value, snapshot, key) == 0, let value else { return nil }
        let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
