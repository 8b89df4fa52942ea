/*
 * sanitizer.h - GT_ASAN is defined when AddressSanitizer is built in (gcc's
 * -fsanitize=address or clang's), where the allocator is the sanitizer's
 */
#ifndef GT_SANITIZER_H
#define GT_SANITIZER_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(GT_ASAN)
#define GT_ASAN 1
#endif

#endif /* GT_SANITIZER_H */
