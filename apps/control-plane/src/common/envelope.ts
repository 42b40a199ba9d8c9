/** Decision 1: every /api response is one of these shapes. */
export interface SuccessEnvelope<T> {
  success: true;
  data: T;
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface ListEnvelope<T> {
  success: true;
  data: T[];
  pagination: Pagination;
}

export interface ErrorEnvelope {
  success: false;
  error: string;
  code: string;
  details?: Record<string, unknown>;
}

export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

export function paginated<T>(data: T[], page: { total: number; limit: number; offset: number }): ListEnvelope<T> {
  return {
    success: true,
    data,
    pagination: { total: page.total, limit: page.limit, offset: page.offset, hasMore: page.offset + data.length < page.total },
  };
}
