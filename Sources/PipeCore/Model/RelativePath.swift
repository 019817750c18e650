import Foundation

/// `path` relative to `base` when it is inside it, for messages that a person can paste.
public func relativePath(_ url: URL, to base: URL) -> String {
    let path = url.standardizedFileURL.path
    let prefix = base.standardizedFileURL.path + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
}
