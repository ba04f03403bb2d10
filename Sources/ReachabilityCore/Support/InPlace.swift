/// Runs `body` on `value` where it lives. Reading a dictionary's value through
/// `values[index].field` copies the whole value first (retaining everything it holds); an
/// `inout` access does not, which matters for thousands of jobs touched per path change.
@inlinable
package func inPlace<Value, Result>(_ value: inout Value, _ body: (inout Value) throws -> Result) rethrows -> Result {
    try body(&value)
}
