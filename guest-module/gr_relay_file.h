/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_relay_file.h - the client channels' relay files and klog, at module
 * load and unload (gr_relay_file.c)
 */
#ifndef _GR_RELAY_FILE_H
#define _GR_RELAY_FILE_H

void gr_relay_files_init(void);
void gr_relay_files_exit(void);

#endif /* _GR_RELAY_FILE_H */
