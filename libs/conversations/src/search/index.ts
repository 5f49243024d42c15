export { SearchModule } from './search.module';
export { SEARCH_CONFIGS, type SearchConfig, searchConfigOf } from './search-language';
