/*
 * live_page — the live view's page (tools/live/page.html), built into the binary with the assembler's
 * .incbin, so that rocesim serves it with no file beside it and no network access.
 */
#include <stddef.h>

__asm__(".section .rodata\n"
        ".global live_page\n"
        ".type live_page, @object\n"
        ".balign 16\n"
        "live_page:\n"
        ".incbin \"tools/live/page.html\"\n"
        "live_page_end:\n"
        ".byte 0\n"
        ".global live_page_len\n"
        ".type live_page_len, @object\n"
        ".balign 8\n"
        "live_page_len:\n"
        ".quad live_page_end - live_page\n"
        ".previous\n");
