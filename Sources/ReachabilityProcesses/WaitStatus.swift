import Glibc

/// A `waitpid` status, decoded: Glibc's `WIFEXITED` family are function-like macros, which
/// Swift does not import.
enum WaitStatus: Equatable {
    case exited(Int32)
    case signalled(Int32)
    case stopped(Int32)
    case continued

    init(_ raw: Int32) {
        if raw == 0xffff {
            self = .continued
        } else if raw & 0xff == 0x7f {
            self = .stopped((raw >> 8) & 0xff)
        } else if raw & 0x7f == 0 {
            self = .exited((raw >> 8) & 0xff)
        } else {
            self = .signalled(raw & 0x7f)
        }
    }
}
