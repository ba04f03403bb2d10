import ReachabilityCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call on a local file.
struct FileError: Error, Sendable {
    var code: Int32
    var operation: String
    var path: String

    init(_ operation: String, path: String, code: Int32 = errno) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    var message: String { "\(operation) \(path): \(String(cString: strerror(code)))" }

    var kind: TransferError.Kind {
        switch code {
        case ENOSPC, EDQUOT, EFBIG: .diskFull
        case EACCES, EPERM, EROFS, ENOTDIR, ENOENT, EISDIR, ELOOP, ESTALE: .notWritable
        default: .io
        }
    }

    func transferError(url: String) -> TransferError {
        TransferError(kind, url: url, path: path, detail: message)
    }
}
