import CCrypto

/// A running SHA-256 (downloads' `--sha256`, resume records' names), computed by OpenSSL's
/// libcrypto, which the system keeps patched. Not swift-crypto: it carried a second copy of
/// BoringSSL (swift-nio-ssl has one) for this one digest.
///
/// Not copyable: it owns OpenSSL's digest context, freed with it.
package struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    /// A hasher that has seen nothing.
    package init() {
        // Allocation is all that can fail here; without memory nothing else would go on either.
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL cannot allocate a digest context") }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "OpenSSL has no SHA-256")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to what was hashed.
    package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds `bytes` to what was hashed.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// The 32-byte digest of everything added so far; the hasher can go on after it.
    package func finalize() -> [UInt8] {
        // On a copy of the context: finalising OpenSSL's own ends it.
        guard let copy = EVP_MD_CTX_new() else { fatalError("OpenSSL cannot allocate a digest context") }
        defer { EVP_MD_CTX_free(copy) }
        precondition(EVP_MD_CTX_copy_ex(copy, context) == 1, "OpenSSL cannot copy a digest context")
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(copy, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
