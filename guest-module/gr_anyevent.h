/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_anyevent: find any trace event of this kernel by "system:name"
 * (first step of issue 25; nothing is recorded yet).
 */
#ifndef GR_ANYEVENT_H
#define GR_ANYEVENT_H

void gr_anyevent_init(void);
void gr_anyevent_exit(void);

#endif
