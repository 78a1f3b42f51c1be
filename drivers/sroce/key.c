// SPDX-License-Identifier: GPL-2.0
/*
 * key.c - the key table of a device, shared by memory regions (mr.c) and
 * memory windows (mw.c): allocation of keys, their lookup and checks for
 * the data path, and invalidation.
 *
 * Keys.  A region has one key, used as both lkey and rkey: a 24-bit index
 * into the device's xarray in the upper bits, drawn from the device's
 * secret permutation (ident.c: no index comes back before 2^24 others were
 * drawn, none can be predicted from the others), and a variant byte,
 * random per registration, in the low 8 bits (the consumer's byte of
 * ib_update_fast_reg_key() and ibv_inc_rkey()).  Index 0 is never used:
 * key 0 is always invalid.  Memory windows (mw.c) take their rkeys from
 * the same table, their entries tagged SROCE_KEY_TAG_MW: an rkey may name
 * either, an lkey only a region.
 *
 * Lookups run under RCU: an entry found takes a reference on its region
 * (kref_get_unless_zero()) before the read side ends.  Removal
 * (sroce_key_erase()) stops new lookups at once.
 *
 * Checks (sroce_mr_lookup_local() / _remote()), in this order; the first
 * failure decides the error:
 *  1. the key names a live region (index and variant): else -ENOENT;
 *     an rkey naming a window is checked by the window first (mw.c:
 *     bound, the caller's PD and, for type 2, QP, its rights and range),
 *     then stands for the region the window lies in;
 *  2. the region belongs to the caller's PD: else -EACCES;
 *  3. the access is granted: a local access asks for 0 (read, always
 *     granted) or IB_ACCESS_LOCAL_WRITE; a remote one for one or more of
 *     IB_ACCESS_REMOTE_READ/_WRITE/_ATOMIC, each of which the registration
 *     must hold; any other bit is refused: else -EACCES;
 *  4. [va, va + len) lies inside [iova, iova + length), computed without
 *     64-bit overflow (a len of 0 needs va inside or at the end): else
 *     -ERANGE.
 * The data path maps them to its completion statuses (local protection /
 * length errors, remote access errors).  Alignment of atomics is its job.
 */
#include <linux/random.h>
#include <linux/xarray.h>

#include "sroce.h"

/* The rights a remote access may ask for. */
#define SROCE_KEY_ACCESS_REMOTE						\
	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_ATOMIC)

/**
 * sroce_key_table_init() - set up a device's key table
 * @sdev: the device being created
 */
void sroce_key_table_init(struct sroce_dev *sdev)
{
	/*
	 * Interrupts off around the xarray's lock: a key is erased under
	 * key_lock and the region's inval_lock, which the receive path takes
	 * in softirq context; taken with softirqs on elsewhere, the lock
	 * could be held by a CPU whose softirq then waits for inval_lock
	 * (lockdep reported it in make check-debug's lifecycle test).
	 */
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sroce_ident_init(&sdev->mr_ids, 1);
	spin_lock_init(&sdev->key_lock);
}

/**
 * sroce_key_table_destroy() - end of a device's key table
 * @sdev: a device whose regions and windows are all gone
 */
void sroce_key_table_destroy(struct sroce_dev *sdev)
{
	WARN_ON(!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->mr_xa);
}

/**
 * sroce_key_alloc() - reserve an index of the key table for a new key
 * @sdev: the device
 * @key: set to the key: its index, 1..2^24-1, from the device's secret
 *	permutation (ident.c), and a random variant
 *
 * The entry stays empty (no lookup finds it) until the caller publishes
 * its object there (sroce_key_publish()), once the key is set in it.
 *
 * Return: 0, -EBUSY when every index is taken, -ENOMEM.
 */
int sroce_key_alloc(struct sroce_dev *sdev, u32 *key)
{
	u32 index;
	int ret;

	ret = sroce_ident_alloc(&sdev->mr_ids, &sdev->mr_xa, &index);
	if (ret < 0)
		return ret;
	*key = index << 8 | get_random_u8();
	return 0;
}

/**
 * sroce_key_publish() - make a key's object reachable by lookups
 * @sdev: the device
 * @key: from sroce_key_alloc()
 * @mr: the region the key names, or NULL
 * @mw: the window the key names, or NULL; exactly one of the two is set
 *
 * The object must be initialised: xa_store() implies a barrier.
 */
void sroce_key_publish(struct sroce_dev *sdev, u32 key, struct sroce_mr *mr,
		       struct sroce_mw *mw)
{
	xa_store_irq(&sdev->mr_xa, key >> 8,
		     mw ? xa_tag_pointer(mw, SROCE_KEY_TAG_MW) : mr, GFP_KERNEL);
}

/**
 * sroce_key_erase() - no lookup finds the object of @key any more
 * @sdev: the device
 * @key: a key from sroce_key_alloc()
 *
 * Lookups already under way may still hold the object: its users wait for
 * an RCU grace period, or for the references taken.
 */
void sroce_key_erase(struct sroce_dev *sdev, u32 key)
{
	unsigned long flags;

	xa_lock_irqsave(&sdev->mr_xa, flags);
	__xa_erase(&sdev->mr_xa, key >> 8);
	xa_unlock_irqrestore(&sdev->mr_xa, flags);
}

/**
 * sroce_key_mr() - the region in the entry of a key's index
 * @sdev: the device
 * @key: any key; its variant is not compared
 *
 * Context: RCU read side.
 * Return: the region, or NULL (no entry, or a window's).
 */
struct sroce_mr *sroce_key_mr(struct sroce_dev *sdev, u32 key)
{
	void *entry = xa_load(&sdev->mr_xa, key >> 8);

	if (!entry || xa_pointer_tag(entry) == SROCE_KEY_TAG_MW)
		return NULL;
	return entry;
}

/**
 * sroce_key_mw() - the window in the entry of a key's index
 * @sdev: the device
 * @key: any key; its variant is not compared
 *
 * Context: RCU read side.
 * Return: the window, or NULL (no entry, or a region's).
 */
struct sroce_mw *sroce_key_mw(struct sroce_dev *sdev, u32 key)
{
	void *entry = xa_load(&sdev->mr_xa, key >> 8);

	if (!entry || xa_pointer_tag(entry) != SROCE_KEY_TAG_MW)
		return NULL;
	return xa_untag_pointer(entry);
}

static struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key,
					struct ib_pd *pd, u32 qpn, bool remote,
					int access, u64 va, u64 len)
{
	struct sroce_mw *mw;
	struct sroce_mr *mr;
	unsigned long flags;
	int ret;

	rcu_read_lock();
	mw = sroce_key_mw(sdev, key);
	if (mw) {
		mr = remote ? sroce_mw_resolve(mw, key, pd, qpn, access, va,
					       len) :
			      ERR_PTR(-ENOENT);
		rcu_read_unlock();
		/* The window's range lies inside the region: check 4 holds. */
		return mr;
	}
	mr = sroce_key_mr(sdev, key);
	if (!mr || READ_ONCE(mr->key) != key ||
	    !kref_get_unless_zero(&mr->ref)) {
		rcu_read_unlock();
		return ERR_PTR(-ENOENT);
	}
	rcu_read_unlock();

	if (mr->fr) {
		/* Its registration changes with REG_MR and invalidation. */
		spin_lock_irqsave(&sdev->key_lock, flags);
		ret = mr->fr_valid && mr->key == key ?
		      sroce_mr_check(mr, pd, access, va, len) : -ENOENT;
		spin_unlock_irqrestore(&sdev->key_lock, flags);
	} else {
		ret = sroce_mr_check(mr, pd, access, va, len);
	}
	if (ret) {
		sroce_mr_put(mr);
		return ERR_PTR(ret);
	}
	return mr;
}

/**
 * sroce_mr_lookup_local() - find a region by lkey for a local access
 * @sdev: the device
 * @lkey: the key from a work request's SGE
 * @pd: the PD of the QP doing the access
 * @access: 0 to read the region, IB_ACCESS_LOCAL_WRITE to write it
 * @va: first address accessed
 * @len: bytes accessed
 *
 * Return: the region with a reference (drop it with sroce_mr_put()), or
 * ERR_PTR(-ENOENT / -EACCES / -ERANGE) as described at the top of mr.c.
 */
struct sroce_mr *sroce_mr_lookup_local(struct sroce_dev *sdev, u32 lkey,
				       struct ib_pd *pd, int access, u64 va,
				       u64 len)
{
	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EACCES);
	return sroce_mr_lookup(sdev, lkey, pd, 0, false, access, va, len);
}

/**
 * sroce_mr_lookup_remote() - find a region by rkey for a remote access
 * @sdev: the device
 * @rkey: the key from the packet's RETH or AtomicETH: a region's, or a
 *	memory window's
 * @pd: the PD of the QP the packet arrived on
 * @qpn: that QP's number (a type 2 window serves the QP it is bound to)
 * @access: IB_ACCESS_REMOTE_READ, _WRITE and/or _ATOMIC; at least one
 * @va: first address accessed
 * @len: bytes accessed
 *
 * Return: as sroce_mr_lookup_local().
 */
struct sroce_mr *sroce_mr_lookup_remote(struct sroce_dev *sdev, u32 rkey,
					struct ib_pd *pd, u32 qpn, int access,
					u64 va, u64 len)
{
	if (!access || (access & ~SROCE_KEY_ACCESS_REMOTE))
		return ERR_PTR(-EACCES);
	return sroce_mr_lookup(sdev, rkey, pd, qpn, true, access, va, len);
}

/**
 * sroce_key_invalidate() - LOCAL_INV, or SEND_WITH_INV from the peer
 * @sdev: the device
 * @key: the key to invalidate: of a fast-registration region or a type 2
 *	memory window
 * @pd: the PD of the QP asking
 * @qpn: that QP
 *
 * Return: 0, or -EINVAL (nothing changes): another kind of key, not
 * valid, another PD (or, for a window, QP).
 */
int sroce_key_invalidate(struct sroce_dev *sdev, u32 key, struct ib_pd *pd,
			 u32 qpn)
{
	struct sroce_mw *mw;
	struct sroce_mr *mr;
	unsigned long flags;
	int ret = -EINVAL;

	rcu_read_lock();
	mw = sroce_key_mw(sdev, key);
	mr = mw ? NULL : sroce_key_mr(sdev, key);
	if (mw) {
		ret = sroce_mw_invalidate(mw, key, pd, qpn);
	} else if (mr) {
		spin_lock_irqsave(&sdev->key_lock, flags);
		if (mr->fr && mr->fr_valid && mr->key == key && mr->pd == pd) {
			write_lock(&mr->inval_lock);
			mr->fr_valid = false;
			write_unlock(&mr->inval_lock);
			ret = 0;
		}
		spin_unlock_irqrestore(&sdev->key_lock, flags);
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Does @key still reach @mr for this remote access?  @mr's inval_lock is
 * held, so neither the region's registration nor a window on it changes.
 */
static int sroce_key_recheck(struct sroce_dev *sdev, u32 key,
			     struct sroce_mr *mr, struct ib_pd *pd, u32 qpn,
			     int access, u64 va, u64 len)
{
	struct sroce_mw *mw;
	int ret;

	rcu_read_lock();
	mw = sroce_key_mw(sdev, key);
	if (mw)
		ret = sroce_mw_check(mw, key, mr, pd, qpn, access, va, len);
	else if (sroce_key_mr(sdev, key) != mr || mr->key != key ||
		 mr->dead || (mr->fr && !mr->fr_valid))
		ret = -ENOENT;
	else
		ret = sroce_mr_check(mr, pd, access, va, len);
	rcu_read_unlock();
	return ret;
}

/**
 * sroce_mr_remote_begin() - hold a region for one remote access by key
 * @sdev: the device
 * @rkey: the key of the request (a region's or a window's)
 * @mr: the region the key reached when the request was accepted, with a
 *	reference
 * @pd: the PD of the QP the request arrived on
 * @qpn: that QP
 * @access: IB_ACCESS_REMOTE_READ, _WRITE or _ATOMIC
 * @va: first address of this access
 * @len: its bytes
 *
 * The key is checked again, under the region's inval_lock, which stays
 * held until sroce_mr_remote_end(), whatever the check says: an
 * invalidation, a deregistration or an unbind that returned has stopped
 * every later access, and waits for the one under way.  Interrupts are
 * off (the QP lock is held).
 *
 * Return: 0 (the access may go on), or a negative errno as the lookups
 * give (the key no longer reaches the region, or not for this access).
 */
int sroce_mr_remote_begin(struct sroce_dev *sdev, u32 rkey,
			  struct sroce_mr *mr, struct ib_pd *pd, u32 qpn,
			  int access, u64 va, u64 len)
	__acquires(&mr->inval_lock)
{
	read_lock(&mr->inval_lock);
	return sroce_key_recheck(sdev, rkey, mr, pd, qpn, access, va, len);
}

/**
 * sroce_mr_remote_end() - the remote access sroce_mr_remote_begin() checked
 *	is done (or refused)
 * @mr: the region
 */
void sroce_mr_remote_end(struct sroce_mr *mr)
	__releases(&mr->inval_lock)
{
	read_unlock(&mr->inval_lock);
}
