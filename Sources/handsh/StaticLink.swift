// The installed handsh is linked fully statically (scripts/install), so that
// it starts without the dynamic loader's work. A static glibc can look up
// users (getpwnam, getpwuid, getpwent) and load libraries (dlopen) only by
// loading shared objects of the exact glibc version it was built with, at
// run time: exactly what a static binary must never need. GNU readline calls
// the user lookups for `~user` and, when HOME is unset, for `~`; the Swift
// runtime links dlopen for a debugging aid it never uses unless asked.
//
// scripts/install links with `--wrap=SYMBOL` for each of them, which sends
// every call to `__wrap_SYMBOL` below: no user is ever found and no library
// is ever loaded. So `~/.inputrc` with HOME unset, and `~user` anywhere, stay
// unexpanded (handsh(1), ENVIRONMENT). In any other build nothing refers to
// these functions and they do nothing.

/// `struct passwd *getpwnam(const char *)`: no such user.
@_cdecl("__wrap_getpwnam")
public func handshNoGetpwnam(_ name: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? { nil }

/// `struct passwd *getpwuid(uid_t)`: no such user.
@_cdecl("__wrap_getpwuid")
public func handshNoGetpwuid(_ uid: UInt32) -> UnsafeMutableRawPointer? { nil }

/// `struct passwd *getpwent(void)`: the list of users is empty.
@_cdecl("__wrap_getpwent")
public func handshNoGetpwent() -> UnsafeMutableRawPointer? { nil }

/// `void setpwent(void)`.
@_cdecl("__wrap_setpwent")
public func handshNoSetpwent() {}

/// `void endpwent(void)`.
@_cdecl("__wrap_endpwent")
public func handshNoEndpwent() {}

/// `void *dlopen(const char *, int)`: no library can be loaded.
@_cdecl("__wrap_dlopen")
public func handshNoDlopen(_ path: UnsafePointer<CChar>?, _ flags: Int32)
  -> UnsafeMutableRawPointer?
{ nil }
