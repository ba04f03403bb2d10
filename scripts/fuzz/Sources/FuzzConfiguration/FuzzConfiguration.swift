import ReachabilityCore

/// libFuzzer entry point for the configuration file parser: the input is the file's text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let problems = ConfigurationFile.problems(in: text, name: "fuzz.conf")
    do {
        let file = try ConfigurationFile(parsing: text, name: "fuzz.conf")
        precondition(problems.isEmpty, "a file that parses has no problems")
        for rule in file.rules { _ = rule.description }
    } catch {
        precondition(problems.first == error, "the first problem is the parse error")
    }
    // `reach config check` numbers problems by line: increasing, each on a line of the file.
    let lineCount = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
    var previous = 0
    for problem in problems {
        precondition(problem.line > previous && problem.line <= lineCount, "problem line out of order or range")
        previous = problem.line
        _ = problem.description
    }
    return 0
}
