import CArchive
import Foundation

/// Writes zip files through libarchive for the `.ipa` reader's tests, including the hostile shapes a real tool
/// would not write (duplicate names, links, names that climb out).
public enum ZipWriter {
    public enum Member {
        case file(String, [UInt8])
        case link(String, target: String)
        case folder(String)
    }

    public static func write(_ members: [Member], to url: URL) throws {
        guard let archive = archive_write_new() else { throw ZipFailure(message: "libarchive could not start") }
        defer { archive_write_free(archive) }
        archive_write_set_format_zip(archive)
        guard archive_write_open_filename(archive, url.path) == ARCHIVE_OK else { throw failure(archive) }
        for member in members {
            guard let entry = archive_entry_new() else { throw ZipFailure(message: "no entry") }
            defer { archive_entry_free(entry) }
            switch member {
            case .file(let name, let bytes):
                archive_entry_set_pathname(entry, name)
                archive_entry_set_filetype(entry, pipe_archive_type_file)
                archive_entry_set_perm(entry, 0o644)
                archive_entry_set_size(entry, Int64(bytes.count))
                guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw failure(archive) }
                let written = bytes.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
                guard written == bytes.count else { throw failure(archive) }
            case .link(let name, let target):
                archive_entry_set_pathname(entry, name)
                archive_entry_set_filetype(entry, pipe_archive_type_link)
                archive_entry_set_perm(entry, 0o755)
                archive_entry_set_symlink(entry, target)
                guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw failure(archive) }
            case .folder(let name):
                archive_entry_set_pathname(entry, name)
                archive_entry_set_filetype(entry, pipe_archive_type_folder)
                archive_entry_set_perm(entry, 0o755)
                guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw failure(archive) }
            }
        }
        guard archive_write_close(archive) == ARCHIVE_OK else { throw failure(archive) }
    }

    private static func failure(_ archive: OpaquePointer) -> ZipFailure {
        ZipFailure(message: archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed")
    }

    public struct ZipFailure: Error { public var message: String }
}
